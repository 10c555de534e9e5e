import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Cache } from '../../ports/cache.js';
import type { FullTextSource } from '../../ports/full-text-source.js';
import type { PdfExtractor } from '../../ports/pdf-extractor.js';
import type { ProjectStore } from '../../ports/project-store.js';
import type { UrlFetcher } from '../../ports/url-fetcher.js';
import type { ProjectService } from '../project-service.js';
import type { PaperLookup } from '../services.js';
import { DocumentStorage } from './document-storage.js';
import { FigureFileService } from './figure-files.js';
import { FigureLinks } from './figure-links.js';
import { type ChunkRanker, FullTextService } from './full-text-service.js';
import { PaperLibraryService } from './paper-library-service.js';
import { ParseCache } from './parse-cache.js';
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
  signingSecret: string;
  /** Absolute base URL of the service (figure links). */
  publicUrl: string;
  figureUrlTtlSeconds: number;
  urlCacheTtlSeconds: number;
  uploadMaxBytes: number;
  ocr?: boolean;
  /** Embed a PDF's passages as soon as it is filed (default true). */
  prepareQuestionsOnAdd?: boolean;
  /** Longest a question waits for passage vectors before answering by words alone (default: no limit). */
  questionDeadlineMs?: number;
  logger?: Logger;
}

/** Builds the documents capability: full text, questions, add_to_project and figure files. */
export function createDocumentServices(dependencies: DocumentServicesDependencies) {
  const documents = new DocumentStorage(dependencies.store, dependencies.blobs);
  const parses = new ParseCache({
    blobs: dependencies.blobs,
    extractor: dependencies.extractor,
    cache: dependencies.cache,
    parserVersion: dependencies.parserVersion,
  });
  const remote = new RemoteDocuments({
    fetcher: dependencies.fetcher,
    cache: dependencies.cache,
    ttlSeconds: dependencies.urlCacheTtlSeconds,
  });
  const figureLinks = new FigureLinks({
    secret: dependencies.signingSecret,
    publicUrl: dependencies.publicUrl.replace(/\/+$/, ''),
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
    ...(dependencies.questionDeadlineMs === undefined
      ? {}
      : { questionDeadlineMs: dependencies.questionDeadlineMs }),
  });
  const library = new PaperLibraryService({
    projects: dependencies.projects,
    documents,
    parses,
    remote,
    lookup: dependencies.lookup,
    uploadMaxBytes: dependencies.uploadMaxBytes,
    ...(dependencies.prepareQuestionsOnAdd === false
      ? {}
      : {
          onPdfFiled: (tenantId: string, pdfId: string) => {
            // In the background, in the tenant's turns of the ranker's fair queue: the upload has its answer.
            fullText.prepareQuestions(tenantId, pdfId).catch((error: unknown) => {
              dependencies.logger?.warn(
                { err: error, pdf_id: pdfId },
                'embedding a new document ahead of questions failed',
              );
            });
          },
        }),
  });
  const figures = new FigureFileService(figureLinks, parses, dependencies.store);
  return { fullText, library, figures, parses };
}
