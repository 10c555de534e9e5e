import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AppServices } from './app-services.js';
import { createAnswering } from './compose/answering.js';
import { openChatModel } from './compose/chat.js';
import { Closers } from './compose/closers.js';
import { createDocuments, createPdfExtractor } from './compose/documents.js';
import { createFederationServices } from './compose/federation.js';
import { createHeavyWork } from './compose/heavy-work.js';
import { createJobQueue } from './compose/job-queue.js';
import { meteredPdfExtractor } from './compose/metered-ports.js';
import { readinessProbes } from './compose/readiness-probes.js';
import { createReferenceServices } from './compose/references.js';
import {
  createEmbeddingModel,
  createLocalSearch,
  recordVectorsOn,
  startRecordVectors,
} from './compose/search.js';
import { createSharedState } from './compose/shared-state.js';
import {
  createBlobStorage,
  createContentRelease,
  openPaperIndex,
  openProjectStore,
  signingSecretOf,
  startBlobSweeper,
} from './compose/storage.js';
import { createZoteroLibrary } from './compose/zotero.js';
import { threadSharesOf } from './config/cpu-budget.js';
import type { Config } from './config/load-config.js';
import type { ProcessRole } from './config/role.js';
import { resolveChatProfile } from './config/sections/chat.js';
import { type Dependency, DependencyHealth } from './platform/dependency-health.js';
import type { Logger } from './platform/logger.js';
import { WorkTally } from './platform/work-tally.js';
import type { BlobStore } from './ports/blob-store.js';
import type { Cache } from './ports/cache.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { JobQueue } from './ports/job-queue.js';
import type { PaperIndex } from './ports/paper-index.js';
import type { PdfExtractor } from './ports/pdf-extractor.js';
import type { ProjectStore } from './ports/project-store.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import { AuthService } from './services/auth-service.js';
import { CitationService } from './services/export/citation-service.js';
import { ProjectService } from './services/project-service.js';
import type { ReadinessProbe } from './services/services.js';
import { StorageService } from './services/storage/storage-service.js';
import { ZoteroService } from './services/zotero-service.js';

// For the CLI, which opens the stores and reads the record-vector model without a whole container.
export { recordVectorModelOf } from './compose/search.js';
export { openPaperIndex, openProjectStore } from './compose/storage.js';

/**
 * The composition root: the only module that picks adapters from configuration and constructs
 * them, through the factories of `src/compose/` (docs/decisions/0055-composition-root.md). Surfaces
 * (HTTP, MCP, CLI) receive the finished container.
 */
export interface Container {
  config: Config;
  logger: Logger;
  clock: Clock;
  dataDir: string;
  signingSecret: string;
  stores: { projects: ProjectStore; blobs: BlobStore; cache: Cache; index: PaperIndex };
  rateLimiter: RateLimiter;
  /** Buckets per client address for requests without a valid key; absent when that limit is off. */
  unauthenticatedRateLimiter?: RateLimiter;
  /** Parses PDFs off the event loop (worker threads): text in reading order, chunks, figures, metadata. */
  pdf: PdfExtractor;
  /** Background jobs (docs/decisions/0022-jobs-and-workers.md): in-process, or BullMQ with REDIS_URL. */
  jobs: JobQueue;
  services: AppServices;
  probes: ReadinessProbe[];
  /** The upstream sources searches and look-ups federate, by name (empty: nothing leaves the machine). */
  upstreamSources: readonly string[];
  /** What this process is for (ALEXANDRIA_ROLE); /readyz answers for it. */
  role: ProcessRole;
  /** Outages of PostgreSQL, Redis and the blob store as this process sees them (decision 0046). */
  health: DependencyHealth;
  /** The shared dependencies this process uses (configured), for metrics and readiness. */
  dependencies: Dependency[];
  /** Work this process did (pages parsed, vectors embedded, tokens generated), for /metrics. */
  work: WorkTally;
  /**
   * The embedding model's id when the index is given record vectors (ALEXANDRIA_RECORD_VECTORS on
   * and an index that stores them): the model whose backlog /metrics and `alexandria status` show.
   */
  recordVectorModel?: string;
  /** Closes every adapter, last opened first. */
  close(): Promise<void>;
}

export interface ContainerOptions {
  clock?: Clock;
  /**
   * Starts the upkeep a long-running server does in the background (the sweep of PDFs a kill left
   * without their row). Only `serve` asks for it: a CLI command that builds the container for one
   * job (ingest, keys, mcp) neither deletes blobs nor keeps timers (default false).
   */
  background?: boolean;
  /**
   * With REDIS_URL: this process runs queued jobs (`serve` unless ALEXANDRIA_RUN_JOBS=false, and
   * `alexandria worker`); otherwise it only queues them (default false). Without REDIS_URL jobs
   * always run in the process that queued them.
   */
  runJobs?: boolean;
  /** What the process is for, for /readyz (default: `all` when it runs jobs, else `api`). */
  role?: ProcessRole;
  /** Where adapters report dependency outages (one per process; made here when not given). */
  health?: DependencyHealth;
}

export async function createContainer(
  config: Config,
  logger: Logger,
  options: ContainerOptions = {},
): Promise<Container> {
  const clock = options.clock ?? systemClock;
  const dataDir = resolve(config.storage.dataDir);
  await mkdir(dataDir, { recursive: true });
  const closers = new Closers(logger);
  const health = options.health ?? new DependencyHealth(logger);
  const work = new WorkTally();
  const chatProfile = resolveChatProfile(config.chat);
  const background = options.background === true;
  const runsJobs = !config.storage.redisUrl || options.runJobs === true;
  const role = options.role ?? (options.runJobs ? 'all' : 'api');

  const projects = closers.add(await openProjectStore(config, logger, health));
  const storage = closers.add(await createBlobStorage(config.storage, dataDir, health));
  const { blobs } = storage;
  // With REDIS_URL, the cache, the rate limits and the upstream guards are shared by every
  // replica, each falling back to this process's own while Redis fails (decision 0046).
  const shared = closers.add(await createSharedState(config, clock, health));
  const { redis, cache } = shared;
  const { heavy, parseShare } = closers.add(createHeavyWork(config.heavy, redis, clock, logger));
  // One CPU budget for llama.cpp, ONNX Runtime and the PDF workers (docs/decisions/0035-local-chat-model.md).
  const threads = threadSharesOf(config, chatProfile.runsInProcess);
  const pdf = closers.add(createPdfExtractor(config.pdf, threads.pdfWorkers, logger));
  const signingSecret = await signingSecretOf(config.auth, projects, dataDir);
  // Deleting documents frees their blobs once no tenant stores the content (decision 0041).
  const content = createContentRelease(projects, blobs, logger);
  const projectService = new ProjectService(projects, { release: content.release });

  const index = closers.add(await openPaperIndex(config, logger, health));
  const embeddings = closers.add(createEmbeddingModel(config.embedding, threads));
  const localSearch = createLocalSearch(config.search, { index, cache, embeddings, logger });
  const federation = createFederationServices(config.sources, logger, {
    cache,
    ...shared.upstreamGuards,
    clock,
    local: localSearch,
    remember: async (paper) => void (await index.upsert([paper])),
  });
  const jobs = await createJobQueue(config, logger);
  const documents = closers.add(
    createDocuments(config, {
      projects,
      projectService,
      blobs,
      cache,
      extractor: meteredPdfExtractor(pdf, work),
      parseConcurrency: threads.pdfWorkers,
      embeddings,
      lookup: federation.papers,
      fullTextSources: federation.fullTextSources,
      signingSecret,
      parseShare,
      release: content.release,
      jobs,
      runsJobs,
      // An API replica of a scaled-out deployment leaves whole documents to the workers (decision 0046).
      leavesDocumentsToWorkers: jobs.shared && role === 'api',
      logger,
    }),
  );
  content.onReleased(documents.forget);
  // Closed before what its jobs use (closers run last opened first).
  closers.add(jobs);
  closers.add(
    startRecordVectors(config.search, {
      index,
      embeddings,
      jobs,
      work,
      logger,
      keepsIndex: background || options.runJobs === true,
      runsJobs,
    }),
  );
  const chat = closers.add(
    openChatModel(config.chat, chatProfile, { logger, work, threads: threads.chat, preload: background }),
  );
  const { references, citationGraph } = closers.add(
    createReferenceServices(config, {
      documents,
      index,
      blobs,
      projects,
      cache,
      heavy,
      parseShare,
      federation,
    }),
  );
  content.onReleased((sha256) => references.forget(sha256));
  const sweeper = closers.add(
    startBlobSweeper(config, {
      blobs,
      projects,
      release: content.release,
      parserVersion: documents.parses.parserVersion,
      logger,
      background,
    }),
  );

  const services: AppServices = {
    auth: new AuthService(projects),
    projects: projectService,
    fullText: documents.fullText,
    library: documents.library,
    figures: documents.figures,
    pageImages: documents.pageImages,
    citations: new CitationService(projectService),
    references,
    citationGraph,
    zotero: new ZoteroService({
      library: createZoteroLibrary(config.zotero),
      blobs,
      secret: signingSecret,
      lookup: federation.papers,
    }),
    storage: new StorageService({ store: projects, release: content.release, lastSweep: sweeper.lastReport }),
    search: federation.search,
    papers: federation.papers,
    sourceMonitor: federation.monitor,
    ...createAnswering(config, chatProfile, {
      logger,
      model: chat.model,
      embeddings,
      heavy,
      tools: {
        projects: projectService,
        search: federation.search,
        literatureMap: federation.papers,
        fullText: documents.fullText,
        library: documents.library,
      },
    }),
  };

  return {
    config,
    logger,
    clock,
    dataDir,
    signingSecret,
    stores: { projects, blobs, cache, index },
    rateLimiter: shared.rateLimiter,
    unauthenticatedRateLimiter: shared.unauthenticatedRateLimiter,
    pdf,
    jobs,
    services,
    probes: readinessProbes({ projects, blobs, index, redis, jobs }, role),
    upstreamSources: federation.enabled,
    role,
    health,
    work,
    recordVectorModel: recordVectorsOn(config.search, index) ? embeddings.id : undefined,
    dependencies: [
      ...(config.storage.databaseUrl ? (['postgres'] as const) : []),
      ...(redis ? (['redis'] as const) : []),
      ...(storage.shared ? (['blob_store'] as const) : []),
    ],
    close: () => closers.closeAll(),
  };
}

/**
 * Registers the API keys given by configuration; on a first start with no key at all, creates one
 * for the tenant "default" and returns it so the caller can show it once.
 */
export async function bootstrapKeys(container: Container): Promise<{ createdKey?: string }> {
  for (const { tenant, key } of container.config.auth.apiKeys) {
    await container.services.auth.importKey(tenant, key);
  }
  if (await container.services.auth.hasActiveKeys()) return {};
  const { key } = await container.services.auth.createKey('default', 'admin');
  return { createdKey: key };
}
