import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Cache } from '../../ports/cache.js';
import type { FullTextSource } from '../../ports/full-text-source.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { PdfExtractor } from '../../ports/pdf-extractor.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { UrlFetcher } from '../../ports/url-fetcher.js';
import {
  embedPassagesJob,
  enqueuePassageEmbedding,
  passageEmbeddingHandler,
} from '../jobs/passage-embedding-job.js';
import { parsePdfJob, pdfParseHandler, QueuedPdfParsing } from '../jobs/pdf-parse-job.js';
import type { ProjectService } from '../project-service.js';
import type { PaperLookup } from '../services.js';
import type { ContentRelease } from '../storage/content-release.js';
import type { TenantShare } from '../tenant-share.js';
import { DocumentStorage } from './document-storage.js';
import { FigureFileService } from './figure-files.js';
import { FigureLinks } from './figure-links.js';
import { type ChunkRanker, FullTextService } from './full-text-service.js';
import { PageImageService } from './page-images.js';
import { PaperLibraryService } from './paper-library-service.js';
import { ParseCache } from './parse-cache.js';
import { inProcessParsing, meteredParsing } from './pdf-parsing.js';
import { RemoteDocuments } from './remote-documents.js';
import { SourceChain } from './source-chain.js';

export interface DocumentServicesDependencies {
  store: ProjectStore;
  blobs: BlobStore;
  cache: Cache;
  projects: ProjectService;
  extractor: PdfExtractor;
  fetcher: UrlFetcher;
  lookup: PaperLookup;
  ranker: ChunkRanker;
  /** Full-text sources tried before a PDF is parsed, in order (none by default). */
  sources?: readonly FullTextSource[];
  /** Changes whenever the extractor's output changes, so stored parses are redone. */
  parserVersion: string;
  /**
   * PDFs parsed at once: the extractor's worker threads (`ALEXANDRIA_PDF_WORKER_THREADS`, default 2).
   * More wait in their tenant's lane, and tenants take turns.
   */
  parseConcurrency?: number;
  signingSecret: string;
  /**
   * Absolute base URL of the service (figure links), or a function asked at each link: the composition
   * root passes one that answers the public origin of the request being served.
   */
  publicUrl: string | (() => string);
  figureUrlTtlSeconds: number;
  urlCacheTtlSeconds: number;
  uploadMaxBytes: number;
  ocr?: boolean;
  /** Embed a PDF's passages as soon as it is filed (default true). */
  prepareQuestionsOnAdd?: boolean;
  /**
   * Where that embedding is queued (an `embed-passages` job per document) and whether this process
   * runs such jobs. Without it, the embedding runs in the background of this process, unqueued.
   * A shared queue (Redis) also takes add_to_project's parses (a `parse-pdf` job per PDF, run
   * `parseConcurrency` at a time); with the in-process queue they run here directly.
   */
  /**
   * The job queue; `waitTimeoutMs` bounds how long a request waits for a queued parse (then 503:
   * the job goes on, and a retry finds its parse stored).
   */
  jobs?: { queue: JobQueue; run: boolean; concurrency?: number; waitTimeoutMs?: number };
  /** Longest a question waits for passage vectors before answering by words alone (default: no limit). */
  questionDeadlineMs?: number;
  /** Frees the blobs of bytes no tenant stores (a failed parse, an upload no entry took). */
  release?: Pick<ContentRelease, 'release'>;
  /**
   * Each tenant's share of parses (decision 0042): uploads and fetched PDFs that need parsing take
   * a place; past the share they are refused with 429. Unmetered without it.
   */
  parseShare?: TenantShare | undefined;
  logger?: Logger;
}

/** Builds the documents capability: full text, questions, add_to_project, figure files and page images. */
export function createDocumentServices(dependencies: DocumentServicesDependencies) {
  const documents = new DocumentStorage(dependencies.store, dependencies.blobs, {
    release: dependencies.release,
  });
  const parses = new ParseCache({
    blobs: dependencies.blobs,
    extractor: dependencies.extractor,
    cache: dependencies.cache,
    parserVersion: dependencies.parserVersion,
    ...(dependencies.parseConcurrency === undefined ? {} : { concurrency: dependencies.parseConcurrency }),
  });
  const remote = new RemoteDocuments({
    fetcher: dependencies.fetcher,
    cache: dependencies.cache,
    ttlSeconds: dependencies.urlCacheTtlSeconds,
  });
  const figureLinks = new FigureLinks({
    secret: dependencies.signingSecret,
    publicUrl: dependencies.publicUrl,
    ttlSeconds: dependencies.figureUrlTtlSeconds,
  });
  const sources = new SourceChain({
    sources: dependencies.sources ?? [],
    blobs: dependencies.blobs,
    cache: dependencies.cache,
    ...(dependencies.logger ? { logger: dependencies.logger } : {}),
  });
  const fullText = new FullTextService({
    store: dependencies.store,
    documents,
    parses,
    sources,
    remote,
    figureLinks,
    ranker: dependencies.ranker,
    ocr: dependencies.ocr ?? false,
    parseShare: dependencies.parseShare,
    ...(dependencies.questionDeadlineMs === undefined
      ? {}
      : { questionDeadlineMs: dependencies.questionDeadlineMs }),
    // A replica that runs no jobs has the workers embed a document its questions found cold.
    onColdQuestion:
      dependencies.jobs?.queue.shared && !dependencies.jobs.run
        ? queueColdDocument(dependencies.jobs.queue, dependencies)
        : undefined,
  });
  const jobs = dependencies.jobs;
  const library = new PaperLibraryService({
    projects: dependencies.projects,
    documents,
    parsing: meteredParsing(
      jobs?.queue.shared
        ? new QueuedPdfParsing({ jobs: jobs.queue, parses, documents, waitTimeoutMs: jobs.waitTimeoutMs })
        : inProcessParsing(parses),
      parses,
      dependencies.parseShare,
    ),
    remote,
    lookup: dependencies.lookup,
    uploadMaxBytes: dependencies.uploadMaxBytes,
    ...(dependencies.prepareQuestionsOnAdd === false
      ? {}
      : { onPdfFiled: embedOnAdd(dependencies, fullText) }),
  });
  const figures = new FigureFileService(figureLinks, parses, dependencies.store);
  const pageImages = new PageImageService({
    store: dependencies.store,
    documents,
    blobs: dependencies.blobs,
    extractor: dependencies.extractor,
    remote,
  });
  if (jobs?.run) {
    jobs.queue.process(embedPassagesJob, passageEmbeddingHandler(fullText), {
      concurrency: jobs.concurrency ?? 1,
    });
    // As many parse jobs at once as there are parse threads: the rest wait in the shared queue, in
    // their tenants' turns, for whichever worker frees a thread first.
    if (jobs.queue.shared) {
      jobs.queue.process(parsePdfJob, pdfParseHandler(parses, dependencies.blobs), {
        concurrency: dependencies.parseConcurrency ?? 2,
      });
    }
  }
  return { fullText, library, figures, parses, pageImages };
}

/**
 * Embed-on-add: queues an `embed-passages` job for each PDF filed with text (after the upload has
 * its answer), or, with no queue, starts the embedding in the background. Either way it takes the
 * tenant's turns of the ranker's fair queue.
 */
function embedOnAdd(dependencies: DocumentServicesDependencies, fullText: FullTextService) {
  const { jobs, logger } = dependencies;
  return (tenantId: string, pdfId: string) => {
    const started = jobs
      ? enqueuePassageEmbedding(jobs.queue, dependencies.store, tenantId, pdfId)
      : fullText.prepareQuestions(tenantId, pdfId);
    started.catch((error: unknown) => {
      logger?.warn({ err: error, pdf_id: pdfId }, 'embedding a new document ahead of questions failed');
    });
  };
}

/** Queues (or joins) the `embed-passages` job of a stored document a question found without vectors. */
function queueColdDocument(queue: JobQueue, dependencies: DocumentServicesDependencies) {
  return (tenantId: string, pdfRef: string) => {
    enqueuePassageEmbedding(queue, dependencies.store, tenantId, pdfRef).catch((error: unknown) => {
      dependencies.logger?.warn(
        { err: error, pdf_id: pdfRef },
        'queueing the embedding of a document failed',
      );
    });
  };
}
