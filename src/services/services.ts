import type { FullTextResult } from '../domain/fulltext.js';
import type { PaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { ProjectSelector } from './project-service.js';

/**
 * The contracts between capabilities. Each is implemented by one service class and consumed by the
 * surfaces and by other services (the agent uses search and full text as tools).
 */

/** Paper and patent search (local index; federated with upstream sources when configured). */
export interface PaperSearch {
  searchPapers(request: SearchRequest, options?: { signal?: AbortSignal }): Promise<SearchResult>;
  searchPatents(request: SearchRequest, options?: { signal?: AbortSignal }): Promise<SearchResult>;
}

/** Metadata by typed identifier: the local index first, then upstream sources when configured. */
export interface PaperLookup {
  /** The paper, or null when no index or source knows the identifier. */
  findByIdentifier(identifier: PaperIdentifier, options?: { signal?: AbortSignal }): Promise<Paper | null>;
}

/** Full text of a document in numbered chunks, and questions to it. */
export interface FullTextReader {
  /** Chunk `chunk` (1-based; 0 reads 1) of the document `pdfRef` (PDF_URL:…, PROJ:…, or a URL). */
  readChunk(
    tenantId: string,
    pdfRef: string,
    chunk: number,
    options?: { signal?: AbortSignal; param?: string },
  ): Promise<FullTextResult>;
  /** The chunk(s) that best answer `question`, best first (`topK` default 1). */
  ask(
    tenantId: string,
    pdfRef: string,
    question: string,
    options?: { topK?: number; signal?: AbortSignal; param?: string },
  ): Promise<FullTextResult>;
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
    options?: { signal?: AbortSignal },
  ): Promise<Paper[]>;
}

/** A named readiness check (storage, index, …) for /readyz. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
}
