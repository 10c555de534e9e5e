import { WorkerReferenceReader } from '../bibliography/worker-reference-reader.js';
import type { Config } from '../config/load-config.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Cache } from '../ports/cache.js';
import type { PaperIndex } from '../ports/paper-index.js';
import type { ProjectStore } from '../ports/project-store.js';
import type { createDocumentServices } from '../services/documents/create-document-services.js';
import { inProcessParsing, meteredParsing } from '../services/documents/pdf-parsing.js';
import type { PaperMetadataService } from '../services/federation/paper-metadata-service.js';
import type { HeavyWork } from '../services/heavy-work.js';
import { CitationGraphService } from '../services/references/citation-graph.js';
import { federatedRecords } from '../services/references/online-records.js';
import { ReferenceService } from '../services/references/reference-service.js';
import type { PaperSearch } from '../services/services.js';
import type { TenantShare } from '../services/tenant-share.js';

export interface ReferenceDependencies {
  documents: Pick<ReturnType<typeof createDocumentServices>, 'fullText' | 'parses'>;
  index: PaperIndex;
  blobs: BlobStore;
  projects: ProjectStore;
  cache: Cache;
  heavy: HeavyWork;
  parseShare: TenantShare;
  /** The federation; `enabled`: the upstream sources (none: offline). */
  federation: { papers: PaperMetadataService; search: PaperSearch; enabled: readonly string[] };
}

/**
 * Reference checks and citation graphs: heavy work within its budgets (decision 0042), big
 * reference lists read off the event loop; online, entries the index does not resolve are looked
 * up in the sources (decision 0032). The citation graph also feeds the literature map. `close`
 * stops the reader's worker.
 */
export function createReferenceServices(config: Config, dependencies: ReferenceDependencies) {
  const { documents, federation, projects, heavy } = dependencies;
  const reader = new WorkerReferenceReader({ timeoutMs: config.heavy.timeoutMs });
  const references = new ReferenceService({
    documents: documents.fullText,
    index: dependencies.index,
    blobs: dependencies.blobs,
    store: projects,
    // A PDF sent to verify_references is parsed as add_to_project's are (cached by hash), not filed.
    parsing: meteredParsing(inProcessParsing(documents.parses), documents.parses, dependencies.parseShare),
    uploadMaxBytes: config.documents.uploadMaxMb * 1024 * 1024,
    reader,
    budget: heavy,
    cache: dependencies.cache,
    cacheTtlSeconds: config.heavy.cacheTtlSeconds,
    online:
      federation.enabled.length > 0 ? federatedRecords(federation.papers, federation.search) : undefined,
  });
  const citationGraph = new CitationGraphService({ references, store: projects, budget: heavy });
  federation.papers.useLibrary(citationGraph);
  return { references, citationGraph, close: () => reader.close() };
}
