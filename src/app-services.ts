import type { GenerativeAnswers } from './agent/generative-answers.js';
import type { ResearchService } from './agent/research-service.js';
import type { AnalysisService } from './services/analysis-service.js';
import type { AuthService } from './services/auth-service.js';
import type { FigureFiles } from './services/documents/figure-files.js';
import type { PageImageService } from './services/documents/page-images.js';
import type { CitationService } from './services/export/citation-service.js';
import type { PaperMetadataService } from './services/federation/paper-metadata-service.js';
import type { SourceMonitor } from './services/federation/source-monitor.js';
import type { ProjectService } from './services/project-service.js';
import type { CitationGraphService } from './services/references/citation-graph.js';
import type { ReferenceService } from './services/references/reference-service.js';
import type { FullTextReader, PaperLibrary, PaperSearch } from './services/services.js';
import type { StorageService } from './services/storage/storage-service.js';
import type { ZoteroService } from './services/zotero-service.js';

/**
 * Every service the surfaces (HTTP, MCP, CLI) may call, the research agent's included: it sits above
 * the services layer (the agent uses services as tools), so this bag lives above both. The composition root (src/main.ts) builds
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
  /** Pages of stored PDFs drawn as PNG (/api/page_image), cached in the BlobStore. */
  pageImages: PageImageService;
  /** BibTeX/RIS/CSL-JSON export and import of projects. */
  citations: CitationService;
  /** Parsed references of stored PDFs, citation contexts, reference checking (decision 0031). */
  references: ReferenceService;
  /** A project's citation graph and the offline literature map's links (decision 0031). */
  citationGraph: CitationGraphService;
  /** Deleting stored PDFs (their blobs freed) and the storage figures on /metrics (decision 0041). */
  storage: StorageService;
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
