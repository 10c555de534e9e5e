import { UndiciUrlFetcher } from '../adapters/http-fetch/undici-url-fetcher.js';
import type { Config } from '../config/load-config.js';
import { publicUrlOf } from '../config/public-url.js';
import { WorkerPdfExtractor } from '../pdf/worker-pdf-extractor.js';
import type { Logger } from '../platform/logger.js';
import { packageVersion } from '../platform/version.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Cache } from '../ports/cache.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import type { FullTextSource } from '../ports/full-text-source.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { PdfExtractor } from '../ports/pdf-extractor.js';
import type { ProjectStore } from '../ports/project-store.js';
import { createDocumentServices } from '../services/documents/create-document-services.js';
import type { ProjectService } from '../services/project-service.js';
import { QuestionRanker } from '../services/question/question-ranker.js';
import type { PaperLookup } from '../services/services.js';
import type { ContentRelease } from '../services/storage/content-release.js';
import type { TenantShare } from '../services/tenant-share.js';

/** Parses PDFs off the event loop on `threads` worker threads, within ALEXANDRIA_PDF_* limits. */
export function createPdfExtractor(
  settings: Config['pdf'],
  threads: number,
  logger: Logger,
): WorkerPdfExtractor {
  return new WorkerPdfExtractor({
    engine: settings.engine,
    threads,
    timeoutMs: settings.timeoutMs,
    memoryMb: settings.memoryMb,
    maxPages: settings.maxPages,
    maxBytes: settings.maxMb * 1024 * 1024,
    figurePixels: settings.figureMegapixels * 1_000_000,
    logger,
    ocr: settings.ocr ? { languages: settings.ocrLanguages } : undefined,
  });
}

/**
 * What stored parses are keyed by: another engine, a new release or other figure limits parse
 * documents again. r2: metadata read from the printed byline and title block (decision 0028); r3:
 * chunks carry their printed lines and the parse its page sizes (decision 0034); r4: figures carry
 * their printed labels, metadata the printed abstract and year, words join only into words
 * (decision 0050). Bump when the extractor's output changes, so cached parses of an older reading
 * are not served.
 */
function parserVersionOf(settings: Config['pdf']): string {
  return `${settings.engine}-${packageVersion()}-r4-fig${settings.figureMegapixels}`;
}

export interface DocumentDependencies {
  projects: ProjectStore;
  projectService: ProjectService;
  blobs: BlobStore;
  cache: Cache;
  /** The PDF extractor (metered). */
  extractor: PdfExtractor;
  /** Its worker threads: tenants take turns at them (docs/decisions/0018-fair-questions.md). */
  parseConcurrency: number;
  embeddings: EmbeddingModel;
  lookup: PaperLookup;
  fullTextSources: readonly FullTextSource[];
  signingSecret: string;
  parseShare: TenantShare;
  release: ContentRelease;
  jobs: JobQueue;
  /** This process runs queued jobs. */
  runsJobs: boolean;
  /** An API replica of a scaled-out deployment leaves whole documents to the workers (decision 0046). */
  leavesDocumentsToWorkers: boolean;
  logger: Logger;
}

/**
 * Documents: SSRF-safe fetching, stored PDFs, the parse cache, full text, questions (the passage
 * ranker), figures and page images. `close` closes the fetcher.
 */
export function createDocuments(config: Config, dependencies: DocumentDependencies) {
  const { blobs, logger } = dependencies;
  const settings = config.documents;
  const fetcher = new UndiciUrlFetcher({
    maxBytes: settings.fetchMaxMb * 1024 * 1024,
    maxRedirects: settings.fetchMaxRedirects,
    headersTimeoutMs: settings.fetchHeadersTimeoutMs,
    bodyTimeoutMs: settings.fetchBodyTimeoutMs,
    totalTimeoutMs: settings.fetchTotalTimeoutMs,
    allowedPrivateRanges: settings.fetchAllowedPrivateRanges,
    userAgent: `Alexandria/${packageVersion()} (+${publicUrlOf(config)})`,
  });
  const ranker = new QuestionRanker({
    model: dependencies.embeddings,
    blobs,
    onStoreError: (error) => logger.warn({ err: error }, 'storing passage vectors failed'),
    onEmbedError: (error) => logger.warn({ err: error }, 'embedding a document for questions failed'),
    // Tenants take turns embedding, one model batch at a time (docs/decisions/0018-fair-questions.md).
    sliceSize: config.embedding.batchSize,
    // A first question embeds BM25's candidates only (docs/decisions/0012-question-ranking.md).
    firstQuestionCandidates: settings.questionFirstCandidates,
    embedWholeDocuments: !dependencies.leavesDocumentsToWorkers,
  });
  const documents = createDocumentServices({
    store: dependencies.projects,
    blobs,
    cache: dependencies.cache,
    projects: dependencies.projectService,
    extractor: dependencies.extractor,
    fetcher,
    lookup: dependencies.lookup,
    ranker,
    sources: dependencies.fullTextSources,
    parserVersion: parserVersionOf(config.pdf),
    parseConcurrency: dependencies.parseConcurrency,
    signingSecret: dependencies.signingSecret,
    // Asked at each link: the origin the request being served reached us at (decisions/0025).
    publicUrl: () => publicUrlOf(config),
    figureUrlTtlSeconds: settings.figureUrlTtlSeconds,
    urlCacheTtlSeconds: settings.urlCacheTtlSeconds,
    uploadMaxBytes: settings.uploadMaxMb * 1024 * 1024,
    prepareQuestionsOnAdd: settings.embedOnAdd,
    questionDeadlineMs: settings.questionDeadlineMs,
    parseShare: dependencies.parseShare,
    jobs: {
      queue: dependencies.jobs,
      run: dependencies.runsJobs,
      concurrency: config.jobs.concurrency,
      // A parse that waits out an outage does not hold its request past its own limit and a minute.
      waitTimeoutMs: config.pdf.timeoutMs + 60_000,
    },
    release: dependencies.release,
    logger,
  });
  /** Drops what the parse cache and the ranker keep in memory of content whose blobs were freed. */
  const forget = (sha256: string) => {
    documents.parses.forget(sha256);
    ranker.forget(sha256);
  };
  return { ...documents, forget, close: () => fetcher.close() };
}
