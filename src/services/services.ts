import type { GenerativeAnswers } from '../agent/generative-answers.js';
import type { ResearchService } from '../agent/research-service.js';
import type { FullTextResult } from '../domain/fulltext.js';
import type { PaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { AnalysisService } from './analysis-service.js';
import type { AuthService } from './auth-service.js';
import type { CitationService } from './citation-service.js';
import type { FigureFiles } from './documents/figure-files.js';
import type { PaperMetadataService } from './federation/paper-metadata-service.js';
import type { SourceMonitor } from './federation/source-monitor.js';
import type { ProjectSelector, ProjectService } from './project-service.js';
import type { ZoteroService } from './zotero-service.js';

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

/**
 * Every service the surfaces (HTTP, MCP, CLI) may call. The composition root (src/main.ts) builds
 * them; surfaces receive this object and never construct a service or an adapter themselves.
 */
export interface AppServices {
  auth: AuthService;
  projects: ProjectService;
  /** Full text in numbered chunks and questions to a PDF (/api/fulltext, /api/question). */
  fullText: FullTextReader;
  /** add_to_project: uploads, PDF urls and typed identifiers into a tenant's projects. */
  library: PaperLibrary;
  /** Figure images behind signed links (/files/figures/…). */
  figures: FigureFiles;
  /** BibTeX/RIS/CSL-JSON export and import of projects. */
  citations: CitationService;
  /** Saving citations into users' Zotero libraries (save-citation). */
  zotero: ZoteroService;
  /** Paper and patent search: the local index, federated with upstream sources when configured. */
  search: PaperSearch;
  /** Metadata by identifier (/api/paper, add_to_project's lookup) and the literature map. */
  papers: PaperMetadataService;
  /** Outcomes of upstream source calls (logged; counted in Prometheus by the HTTP layer). */
  sourceMonitor: SourceMonitor;
  /** analyze_project: every question asked of every paper of a project. */
  analysis: AnalysisService;
  /** The research agent behind the chat endpoint. */
  research: ResearchService;
  /** The `answer` of each record in generative_mode. */
  answers: GenerativeAnswers;
}

/** A named readiness check (storage, index, …) for /readyz. */
export interface ReadinessProbe {
  name: string;
  check(): Promise<void>;
}
