import type { FullTextResult } from '../domain/fulltext.js';
import type { PaperIdentifier } from '../domain/identifiers.js';
import type { PageAnchor } from '../domain/page-anchors.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { HintVocabulary } from './hint-vocabulary.js';
import type { ProjectSelector } from './project-service.js';

/**
 * The contracts between capabilities. Each is implemented by one service class and consumed by the
 * surfaces and by other services (the agent uses search and full text as tools).
 */

/** What every service call that answers with a `hint` may be given besides its arguments. */
export interface HintedCallOptions {
  signal?: AbortSignal;
  /** Names the next steps the hint advises in the caller's terms; REST names when absent. */
  hints?: HintVocabulary;
}

/** Paper and patent search (local index; federated with upstream sources when configured). */
export interface PaperSearch {
  searchPapers(request: SearchRequest, options?: HintedCallOptions): Promise<SearchResult>;
  searchPatents(request: SearchRequest, options?: HintedCallOptions): Promise<SearchResult>;
}

/** Metadata by typed identifier: the local index first, then upstream sources when configured. */
export interface PaperLookup {
  /** The paper, or null when no index or source knows the identifier. */
  findByIdentifier(identifier: PaperIdentifier, options?: { signal?: AbortSignal }): Promise<Paper | null>;
}

/** Options of a full-text read; `param` is the request parameter named by errors (default pdf_url). */
export interface ReadOptions extends HintedCallOptions {
  param?: string;
  /**
   * Read only what is here: a PDF stored in a project or the cached parse of a PDF read before. A
   * document that would have to be fetched (a remote PDF, a full-text source) is a `not_found`
   * instead, with no network call (offline installations; docs/decisions/0030-chat-details.md).
   */
  localOnly?: boolean;
}

/** Full text of a document in numbered chunks, and questions to it. */
export interface FullTextReader {
  /** Chunk `chunk` (1-based; 0 reads 1) of the document `pdfRef` (PDF_URL:…, PROJ:…, or a URL). */
  readChunk(tenantId: string, pdfRef: string, chunk: number, options?: ReadOptions): Promise<FullTextResult>;
  /** The chunk(s) that best answer `question`, best first (`topK` default 1). */
  ask(
    tenantId: string,
    pdfRef: string,
    question: string,
    options?: ReadOptions & { topK?: number },
  ): Promise<FullTextResult>;
  /**
   * Where `quote` (text of chunk `chunk`) is printed: its pages and boxes. Null when the document
   * is not stored here, has no printed lines (text from a full-text source) or lacks the quote.
   * Never fetches or parses: it answers from documents already read.
   */
  locate?(tenantId: string, pdfRef: string, chunk: number, quote: string): Promise<PageAnchor | null>;
}

/** What `add_to_project` is given. */
export type AddPaperInput =
  | { kind: 'upload'; bytes: Uint8Array; filename?: string }
  | { kind: 'url'; url: string }
  | { kind: 'identifier'; identifier: PaperIdentifier };

/** Adds papers to a tenant's project (upload, PDF url or identifier), storing the PDF when there is one. */
export interface PaperLibrary {
  add(
    tenantId: string,
    selector: ProjectSelector,
    input: AddPaperInput,
    options?: HintedCallOptions,
  ): Promise<Array<Paper & { hint?: string }>>;
}

/** What a process serves: reads (search, papers, questions), writes (uploads, projects) or jobs. */
export type Capability = 'reads' | 'writes' | 'jobs';

/** A named readiness check (storage, index, …) for /readyz. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
  /**
   * What this process cannot serve while the check fails (default: everything). A process whose
   * role needs none of these stays ready — degraded — while it fails (docs/decisions/0046).
   */
  neededFor?: readonly Capability[];
}
