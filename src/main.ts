import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { LlamaCppChatModel } from './adapters/chat/llama-cpp-chat-model.js';
import { OpenAiChatModel } from './adapters/chat/openai-chat-model.js';
import { OnnxEmbeddingModel } from './adapters/embeddings/onnx-embedding-model.js';
import { OpenAiEmbeddingModel } from './adapters/embeddings/openai-embedding-model.js';
import { FsBlobStore } from './adapters/fs/fs-blob-store.js';
import { UndiciUrlFetcher } from './adapters/http-fetch/undici-url-fetcher.js';
import { MemoryConcurrencyLimiter } from './adapters/memory/memory-concurrency-limiter.js';
import { createPostgresPaperIndex } from './adapters/postgres/postgres-paper-index.js';
import { createPostgresProjectStore } from './adapters/postgres/postgres-project-store.js';
import { RedisConcurrencyLimiter } from './adapters/redis/redis-concurrency-limiter.js';
import { S3BlobStore } from './adapters/s3/s3-blob-store.js';
import { createUpstreamSources, missingRequirement } from './adapters/sources/create-upstream-sources.js';
import { createSqlitePaperIndex } from './adapters/sqlite/sqlite-paper-index.js';
import { createSqliteProjectStore } from './adapters/sqlite/sqlite-project-store.js';
import { ZoteroWebApi } from './adapters/zotero/zotero-web-api.js';
import type { AgentBudgets, ResearchTools } from './agent/agent-types.js';
import { GenerativeAnswers } from './agent/generative-answers.js';
import { ResearchService } from './agent/research-service.js';
import type { AppServices } from './app-services.js';
import { WorkerReferenceReader } from './bibliography/worker-reference-reader.js';
import { createJobQueue } from './compose/job-queue.js';
import { meteredChatModel, meteredPdfExtractor } from './compose/metered-ports.js';
import { postgresPoolOptions, standbyRoutingOptions } from './compose/postgres-options.js';
import { readinessProbes } from './compose/readiness-probes.js';
import { createSharedState } from './compose/shared-state.js';
import { splitThreadBudget } from './config/cpu-budget.js';
import { type Config, ConfigError } from './config/load-config.js';
import { publicUrlOf } from './config/public-url.js';
import type { ProcessRole } from './config/role.js';
import { sourceNames } from './config/sections/sources.js';
import type { Paper } from './domain/paper.js';
import { WorkerPdfExtractor } from './pdf/worker-pdf-extractor.js';
import { type Dependency, DependencyHealth } from './platform/dependency-health.js';
import type { Logger } from './platform/logger.js';
import { packageVersion } from './platform/version.js';
import { WorkTally } from './platform/work-tally.js';
import type { BlobStore } from './ports/blob-store.js';
import type { Cache } from './ports/cache.js';
import type { ChatModel } from './ports/chat-model.js';
import type { CircuitBreakers } from './ports/circuit-breaker.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { ConcurrencyLimiter } from './ports/concurrency-limiter.js';
import type { EmbeddingModel } from './ports/embedding-model.js';
import type { JobQueue } from './ports/job-queue.js';
import type { PaperIndex } from './ports/paper-index.js';
import type { PdfExtractor } from './ports/pdf-extractor.js';
import type { ProjectStore } from './ports/project-store.js';
import type { RateGates } from './ports/rate-gate.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import { AnalysisService } from './services/analysis-service.js';
import { AuthService } from './services/auth-service.js';
import { createDocumentServices } from './services/documents/create-document-services.js';
import { inProcessParsing, meteredParsing } from './services/documents/pdf-parsing.js';
import { CitationService } from './services/export/citation-service.js';
import {
  createFederation,
  emptyLocalIndex,
  fullTextSourcesOf,
} from './services/federation/paper-metadata-service.js';
import { SourceMonitor } from './services/federation/source-monitor.js';
import { HeavyWork } from './services/heavy-work.js';
import { ProjectService } from './services/project-service.js';
import { QuestionRanker } from './services/question/question-ranker.js';
import { CitationGraphService } from './services/references/citation-graph.js';
import { federatedRecords } from './services/references/online-records.js';
import { ReferenceService } from './services/references/reference-service.js';
import { RecordVectorsJob } from './services/search/record-vectors-job.js';
import { scheduleRecordVectors } from './services/search/record-vectors-schedule.js';
import { SearchService } from './services/search-service.js';
import type { PaperLookup, PaperSearch, ReadinessProbe } from './services/services.js';
import { BlobSweeper } from './services/storage/blob-sweeper.js';
import { ContentRelease } from './services/storage/content-release.js';
import { StorageService } from './services/storage/storage-service.js';
import { TenantShare } from './services/tenant-share.js';
import { ZoteroService } from './services/zotero-service.js';

/**
 * The composition root: the only module that picks adapters from configuration and constructs
 * them. Surfaces (HTTP, MCP, CLI) receive the finished container.
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
  const closers: Array<() => Promise<void>> = [];
  const health = options.health ?? new DependencyHealth(logger);
  const work = new WorkTally();

  const projects = await openProjectStore(config, logger, health);
  closers.push(() => projects.close());

  const { storage } = config;
  const s3 = storage.s3Bucket
    ? new S3BlobStore({
        bucket: storage.s3Bucket,
        region: storage.s3Region,
        ...(storage.s3Endpoint ? { endpoint: storage.s3Endpoint } : {}),
        ...(storage.s3AccessKeyId ? { accessKeyId: storage.s3AccessKeyId } : {}),
        ...(storage.s3SecretAccessKey ? { secretAccessKey: storage.s3SecretAccessKey } : {}),
        health: {
          onOutage: (error) => health.failed('blob_store', 'request', error),
          onAnswered: () => health.answered('blob_store'),
        },
      })
    : undefined;
  if (s3) closers.push(async () => s3.close());
  const blobs: BlobStore = s3 ?? new FsBlobStore(join(dataDir, 'blobs'));

  // With REDIS_URL, the cache, the rate limits and the upstream guards are shared by every
  // replica, each falling back to this process's own while Redis fails (decision 0046).
  const shared = await createSharedState(config, clock, health);
  closers.push(() => shared.close());
  const { redis, cache, rateLimiter, unauthenticatedRateLimiter, upstreamGuards } = shared;
  // Heavy work has a price (docs/decisions/0042-heavy-work-budgets.md): tenants' places are counted
  // where every replica sees them; slots and time budgets are this process's.
  const places: ConcurrencyLimiter = redis
    ? new RedisConcurrencyLimiter(redis, clock)
    : new MemoryConcurrencyLimiter(clock);
  closers.push(() => places.close());
  const onPlacesError = (error: unknown) =>
    logger.warn({ err: error }, 'tenant places unavailable: heavy work goes ahead unmetered');
  const heavy = new HeavyWork({
    slots: config.heavy.slots,
    perTenant: config.heavy.perTenant,
    queueMs: config.heavy.queueMs,
    timeoutMs: config.heavy.timeoutMs,
    places,
    name: 'heavy',
    settings: {
      perTenant: 'ALEXANDRIA_HEAVY_PER_TENANT',
      queueMs: 'ALEXANDRIA_HEAVY_QUEUE_MS',
      timeoutMs: 'ALEXANDRIA_HEAVY_TIMEOUT_MS',
    },
    onPlacesError,
  });
  const parseShare = new TenantShare({
    places,
    perTenant: config.heavy.parsesPerTenant,
    name: 'parse',
    what: 'PDF parses',
    setting: 'ALEXANDRIA_PARSE_PER_TENANT',
    onError: onPlacesError,
  });
  // One CPU budget for llama.cpp, ONNX Runtime and the PDF workers (docs/decisions/0035-local-chat-model.md).
  const threads = splitThreadBudget({
    total: config.cpu.threads,
    localChat: chatProviderOf(config) === 'local',
    chatThreads: config.chat.threads,
    embeddingThreads: config.embedding.threads,
    pdfWorkers: config.pdf.workerThreads,
  });
  const pdf = new WorkerPdfExtractor({
    engine: config.pdf.engine,
    threads: threads.pdfWorkers,
    timeoutMs: config.pdf.timeoutMs,
    memoryMb: config.pdf.memoryMb,
    maxPages: config.pdf.maxPages,
    maxBytes: config.pdf.maxMb * 1024 * 1024,
    figurePixels: config.pdf.figureMegapixels * 1_000_000,
    logger,
    ...(config.pdf.ocr ? { ocr: { languages: config.pdf.ocrLanguages } } : {}),
  });
  closers.push(() => pdf.close());

  const signingSecret =
    config.auth.signingSecret ?? (await storedSigningSecret(projects, join(dataDir, 'secret')));
  // Deleting documents frees their blobs once no tenant stores the content (decision 0041); the
  // processes' memory caches of that content are dropped with them.
  const forgetContent: Array<(sha256: string) => void> = [];
  const release = new ContentRelease({
    store: projects,
    blobs,
    logger,
    onReleased: (sha256) => {
      for (const forget of forgetContent) forget(sha256);
    },
  });
  const projectService = new ProjectService(projects, { release });
  const zoteroLibrary = new ZoteroWebApi({
    baseUrl: config.zotero.apiUrl,
    timeoutMs: config.zotero.timeoutMs,
    userAgent: `Alexandria/${packageVersion()}`,
  });
  // Upstream sources: the keyless ones unless ALEXANDRIA_SOURCES says otherwise. `federation.search` wraps the local
  // search (pass the index's search service as `local`); `fullTextSources` feed the documents capability.
  const index = await openPaperIndex(config, logger, health);
  closers.push(() => index.close());
  const embeddings = createEmbeddingModel(config, threads.embedding);
  closers.push(() => embeddings.close());
  // Hybrid paper search: record vectors computed in the background, used where present (decision 0036).
  const localSearch = new SearchService(index, cache, {
    cacheTtlSeconds: config.search.cacheTtlSeconds,
    ...(config.search.recordVectors && RecordVectorsJob.supported(index)
      ? {
          hybrid: {
            model: embeddings,
            candidates: config.search.hybridCandidates,
            deadlineMs: config.search.hybridDeadlineMs,
            ...(config.search.hybridDenseWeight === undefined
              ? {}
              : { denseWeight: config.search.hybridDenseWeight }),
            onFallback: (error: unknown) =>
              logger.debug({ err: error }, 'dense ranking of a search failed: BM25 order kept'),
          },
        }
      : {}),
  });
  const federation = createFederationServices(config, logger, {
    cache,
    ...upstreamGuards,
    clock,
    local: localSearch,
    remember: async (paper) => void (await index.upsert([paper])),
  });
  // Documents: SSRF-safe fetching, stored PDFs, the parse cache, full text, questions, figures.
  const fetcher = new UndiciUrlFetcher({
    maxBytes: config.documents.fetchMaxMb * 1024 * 1024,
    maxRedirects: config.documents.fetchMaxRedirects,
    headersTimeoutMs: config.documents.fetchHeadersTimeoutMs,
    bodyTimeoutMs: config.documents.fetchBodyTimeoutMs,
    totalTimeoutMs: config.documents.fetchTotalTimeoutMs,
    allowedPrivateRanges: config.documents.fetchAllowedPrivateRanges,
    userAgent: `Alexandria/${packageVersion()} (+${publicUrlOf(config)})`,
  });
  closers.push(() => fetcher.close());
  const jobs = createJobQueue(config, logger);
  const role = options.role ?? (options.runJobs ? 'all' : 'api');
  // An API replica of a scaled-out deployment leaves whole documents to the workers (decision 0046).
  const leavesDocumentsToWorkers = jobs.shared && role === 'api';
  const ranker = new QuestionRanker({
    model: embeddings,
    blobs,
    onStoreError: (error) => logger.warn({ err: error }, 'storing passage vectors failed'),
    onEmbedError: (error) => logger.warn({ err: error }, 'embedding a document for questions failed'),
    // Tenants take turns embedding, one model batch at a time (docs/decisions/0018-fair-questions.md).
    sliceSize: config.embedding.batchSize,
    // A first question embeds BM25's candidates only (docs/decisions/0012-question-ranking.md).
    firstQuestionCandidates: config.documents.questionFirstCandidates,
    embedWholeDocuments: !leavesDocumentsToWorkers,
  });
  const documents = createDocumentServices({
    store: projects,
    blobs,
    cache,
    projects: projectService,
    extractor: meteredPdfExtractor(pdf, work),
    fetcher,
    lookup: federation.papers,
    ranker,
    sources: federation.fullTextSources,
    // Stored parses are keyed by this: another engine, a new release or other figure limits parse
    // documents again.
    // r2: metadata read from the printed byline and title block (decision 0028); r3: chunks carry
    // their printed lines and the parse its page sizes (decision 0034); r4: figures carry their
    // printed labels, metadata the printed abstract and year, words join only into words (decision
    // 0050). Bump when the extractor's output changes, so cached parses of an older reading are not
    // served.
    parserVersion: `${config.pdf.engine}-${packageVersion()}-r4-fig${config.pdf.figureMegapixels}`,
    // Tenants take turns at the parse threads (docs/decisions/0018-fair-questions.md).
    parseConcurrency: threads.pdfWorkers,
    signingSecret,
    // Asked at each link: the origin the request being served reached us at (decisions/0025).
    publicUrl: () => publicUrlOf(config),
    figureUrlTtlSeconds: config.documents.figureUrlTtlSeconds,
    urlCacheTtlSeconds: config.documents.urlCacheTtlSeconds,
    uploadMaxBytes: config.documents.uploadMaxMb * 1024 * 1024,
    prepareQuestionsOnAdd: config.documents.embedOnAdd,
    questionDeadlineMs: config.documents.questionDeadlineMs,
    parseShare,
    jobs: {
      queue: jobs,
      run: !storage.redisUrl || options.runJobs === true,
      concurrency: config.jobs.concurrency,
      // A parse that waits out an outage does not hold its request past its own limit and a minute.
      waitTimeoutMs: config.pdf.timeoutMs + 60_000,
    },
    release,
    logger,
  });
  forgetContent.push(
    (sha256) => documents.parses.forget(sha256),
    (sha256) => ranker.forget(sha256),
  );
  // Closed before what its jobs use (closers run last opened first).
  closers.push(() => jobs.close());
  // Record vectors: a queued walk, one at a time across replicas, run where jobs run (decision 0036).
  const runsJobs = !storage.redisUrl || options.runJobs === true;
  if (
    (options.background || options.runJobs) &&
    config.search.recordVectors &&
    RecordVectorsJob.supported(index)
  ) {
    const walker = new RecordVectorsJob(index, embeddings, {
      batchSize: config.search.recordVectorsBatch,
      pauseMs: config.search.recordVectorsPauseMs,
      idleMs: config.search.recordVectorsIdleMs,
      onBatch: ({ stored }) => {
        work.recordVectorsEmbedded += stored;
      },
    });
    const stopScheduling = scheduleRecordVectors(jobs, walker, {
      run: runsJobs,
      enqueue: true,
      idleMs: config.search.recordVectorsIdleMs,
      onError: (error) => logger.warn({ err: error }, 'queueing the record-vector walk failed'),
    });
    // Closers run last opened first: the timer and the walk stop before the queue, model and index.
    closers.push(async () => {
      stopScheduling();
      await walker.stop();
    });
  }
  // One client for every caller of the configured chat model (agent, generative answers, analyses).
  const chatModel = chatModelOf(config, logger, threads.chat);
  if (chatModel instanceof LlamaCppChatModel) {
    closers.push(() => chatModel.close());
    // Loaded (memory-mapped) while the server starts, so the first question does not wait for it.
    if (options.background) {
      chatModel.load().then(
        () => logger.info({ model: chatModel.id, threads: threads.chat }, 'local chat model loaded'),
        (error) => logger.error({ err: error }, 'the local chat model could not be loaded'),
      );
    }
  }
  const countedChat = chatModel && meteredChatModel(chatModel, work);
  // Big reference lists are read off the event loop (decision 0042).
  const referenceReader = new WorkerReferenceReader({ timeoutMs: config.heavy.timeoutMs });
  closers.push(() => referenceReader.close());
  const references = new ReferenceService({
    documents: documents.fullText,
    index,
    blobs,
    store: projects,
    // A PDF sent to verify_references is parsed as add_to_project's are (cached by hash), not filed.
    parsing: meteredParsing(inProcessParsing(documents.parses), documents.parses, parseShare),
    uploadMaxBytes: config.documents.uploadMaxMb * 1024 * 1024,
    reader: referenceReader,
    budget: heavy,
    cache,
    cacheTtlSeconds: config.heavy.cacheTtlSeconds,
    // Online, entries the index does not resolve are looked up in the sources (decision 0032).
    ...(federation.enabled.length > 0
      ? { online: federatedRecords(federation.papers, federation.search) }
      : {}),
  });
  forgetContent.push((sha256) => references.forget(sha256));
  const citationGraph = new CitationGraphService({ references, store: projects, budget: heavy });
  federation.papers.useLibrary(citationGraph);
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
      library: zoteroLibrary,
      blobs,
      secret: signingSecret,
      lookup: federation.papers,
    }),
    storage: new StorageService({ store: projects, release, lastSweep: () => sweeper?.lastReport }),
    search: federation.search,
    papers: federation.papers,
    sourceMonitor: federation.monitor,
    analysis: new AnalysisService({
      projects: projectService,
      fullText: documents.fullText,
      chunkUrl: (pdfRef, chunk) =>
        `${publicUrlOf(config)}/api/fulltext?pdf_id=${encodeURIComponent(pdfRef)}&chunk=${chunk}`,
      model: countedChat,
      modelTimeoutMs: chatDeadlines(config).callMs,
      budget: heavy,
    }),
    ...createAnswering(config, logger, countedChat, {
      projects: projectService,
      search: federation.search,
      literatureMap: federation.papers,
      fullText: documents.fullText,
      library: documents.library,
    }),
  };

  // Blobs nothing references: left by kills, by older releases, or caches past their retention
  // (docs/decisions/0020-crash-test-and-soak.md, 0041-deletion-that-frees-storage.md).
  let sweeper: BlobSweeper | undefined;
  if (options.background && storage.blobSweepIntervalMinutes > 0) {
    const graceMs = storage.blobSweepGraceMinutes * 60_000;
    sweeper = new BlobSweeper({
      blobs,
      store: projects,
      release,
      graceMs,
      // What no document stores is a cache, kept as long as a url read remembers its content.
      cacheRetentionMs: Math.max(graceMs, config.documents.urlCacheTtlSeconds * 1000),
      parserVersion: documents.parses.parserVersion,
      intervalMs: storage.blobSweepIntervalMinutes * 60_000,
      logger,
    });
    sweeper.start();
    const started = sweeper;
    closers.push(() => started.stop());
  }

  const probes = readinessProbes({ projects, blobs, index, redis, jobs }, role);

  return {
    config,
    logger,
    clock,
    dataDir,
    signingSecret,
    stores: { projects, blobs, cache, index },
    rateLimiter,
    unauthenticatedRateLimiter,
    pdf,
    jobs,
    services,
    probes,
    upstreamSources: federation.enabled,
    role,
    health,
    work,
    recordVectorModel:
      config.search.recordVectors && RecordVectorsJob.supported(index) ? embeddings.id : undefined,
    dependencies: [
      ...(storage.databaseUrl ? (['postgres'] as const) : []),
      ...(redis ? (['redis'] as const) : []),
      ...(s3 ? (['blob_store'] as const) : []),
    ],
    async close() {
      for (const close of closers.reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn({ err: error }, 'closing an adapter failed');
        }
      }
    },
  };
}

/**
 * The local paper/patent index. With DATABASE_URL: one index in PostgreSQL shared by every replica
 * (searches on ALEXANDRIA_DATABASE_READ_URLS when set). Otherwise its own SQLite file (default
 * `<data dir>/index.db`, WAL), so that `alexandria ingest` can write it while the server reads.
 * Used by the container and by the CLI.
 */
export async function openPaperIndex(
  config: Config,
  logger: Logger,
  health?: DependencyHealth,
): Promise<PaperIndex> {
  if (config.storage.databaseUrl) {
    return createPostgresPaperIndex(config.storage.databaseUrl, {
      readUrls: config.storage.databaseReadUrls,
      layout: config.storage.pgIndexLayout,
      ...postgresPoolOptions(config, logger, 'paper index', health),
      standby: standbyRoutingOptions(config, logger),
    });
  }
  const path = config.search.indexPath ?? join(resolve(config.storage.dataDir), 'index.db');
  return createSqlitePaperIndex(resolve(path), {
    mmapBytes: config.search.mmapMb * 1024 * 1024,
    searchThreads: config.search.threads,
    shards: config.search.shards,
  });
}

/**
 * The project store (tenants, keys, projects, documents): PostgreSQL with DATABASE_URL, else
 * `<data dir>/alexandria.db`. Used by the container and by the CLI.
 */
export async function openProjectStore(
  config: Config,
  logger: Logger,
  health?: DependencyHealth,
): Promise<ProjectStore> {
  return config.storage.databaseUrl
    ? createPostgresProjectStore(
        config.storage.databaseUrl,
        postgresPoolOptions(config, logger, 'project store', health),
      )
    : createSqliteProjectStore(join(resolve(config.storage.dataDir), 'alexandria.db'));
}

/**
 * The id of the model record vectors are computed with (decision 0036), when they are on and
 * `index` stores them; the model is not loaded. Used by `alexandria status`.
 */
export async function recordVectorModelOf(config: Config, index: PaperIndex): Promise<string | undefined> {
  if (!config.search.recordVectors || !RecordVectorsJob.supported(index)) return undefined;
  const model = createEmbeddingModel(config, 1);
  await model.close();
  return model.id;
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

/**
 * Upstream sources and federation (docs/decisions/0008, 0045). By default the open, keyless
 * sources; with ALEXANDRIA_SOURCES=none no source is built, nothing leaves the machine, and `search`
 * is the local search itself. A source named explicitly without what it needs fails fast; with
 * "all" it is left out.
 */
function createFederationServices(
  config: Config,
  logger: Logger,
  dependencies: {
    cache: Cache;
    rateGates: RateGates;
    breakers: CircuitBreakers;
    clock: Clock;
    local?: PaperSearch & PaperLookup;
    remember?: (paper: Paper) => Promise<void>;
  },
) {
  const settings = config.sources;
  const all = settings.enabled.includes('all');
  const problems: string[] = [];
  const enabled = (all ? [...sourceNames] : settings.enabled).filter((name) => {
    const missing = missingRequirement(name, settings);
    if (!missing) return true;
    if (all) logger.info({ source: name }, `source left out: ${missing} is not set`);
    else problems.push(`${missing}: required when ALEXANDRIA_SOURCES includes ${name}`);
    return false;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  const upstream = createUpstreamSources({
    enabled,
    contactEmail: settings.contactEmail,
    openAlexApiKey: settings.openAlexApiKey,
    semanticScholarApiKey: settings.semanticScholarApiKey,
    semanticScholarRequestsPerSecond: settings.semanticScholarRequestsPerSecond,
    ncbiApiKey: settings.ncbiApiKey,
    patentsViewApiKey: settings.patentsViewApiKey,
    sourceTimeoutMs: settings.sourceTimeoutMs,
    breakerCooldownMs: settings.breakerCooldownMs,
    baseUrls: Object.fromEntries(settings.sourceUrls),
    cache: dependencies.cache,
    rateGates: dependencies.rateGates,
    breakers: dependencies.breakers,
    clock: dependencies.clock,
    logger,
  });
  if (enabled.length > 0) logger.info({ sources: enabled }, 'federating upstream sources');
  else logger.info({ sources: [] }, 'upstream sources off: every request stays on this machine');
  const monitor = new SourceMonitor(logger);
  const federation = createFederation({
    local: dependencies.local ?? emptyLocalIndex,
    sources: upstream.sources,
    patentSources: upstream.patentSources,
    ...(upstream.openAccess ? { openAccess: upstream.openAccess } : {}),
    cache: dependencies.cache,
    monitor,
    settings: {
      deadlineMs: settings.deadlineMs,
      sourceTimeoutMs: settings.sourceTimeoutMs,
      depth: settings.depth,
    },
    ...(dependencies.remember ? { remember: dependencies.remember } : {}),
  });
  return { ...federation, monitor, enabled, fullTextSources: fullTextSourcesOf(upstream.sources) };
}

/**
 * The sentence encoder for questions to PDFs: local ONNX Runtime by default, or an
 * OpenAI-compatible `/embeddings` API (ALEXANDRIA_EMBEDDING_PROVIDER=openai).
 */
function createEmbeddingModel(config: Config, threads: number): EmbeddingModel {
  const settings = config.embedding;
  if (settings.provider === 'openai') {
    if (!settings.url) {
      throw new ConfigError(['ALEXANDRIA_EMBEDDING_URL: required when ALEXANDRIA_EMBEDDING_PROVIDER=openai']);
    }
    return new OpenAiEmbeddingModel({
      baseUrl: settings.url,
      apiKey: settings.apiKey,
      model: settings.model,
      dimensions: settings.dimensions,
      maxTokens: settings.maxTokens,
      batchSize: settings.batchSize,
      timeoutMs: settings.timeoutMs,
      maxRetries: settings.maxRetries,
      queryPrefix: settings.queryPrefix,
      documentPrefix: settings.documentPrefix,
    });
  }
  return new OnnxEmbeddingModel({
    modelDir: settings.modelDir,
    modelFile: settings.modelFile,
    name: settings.model,
    pooling: settings.pooling,
    maxSequence: settings.maxTokens,
    threads,
    queryThread: settings.queryThread,
    batchSize: settings.batchSize,
    queryPrefix: settings.queryPrefix,
    documentPrefix: settings.documentPrefix,
  });
}

/**
 * The figure-link signing secret when configuration sets none: generated once into the project
 * store, so every replica on one PostgreSQL database signs and verifies links alike. A secret that
 * an older release kept in `<data dir>/secret` is the one proposed, so links and Zotero credentials
 * made before keep working; the file is read, never written (docs/decisions/0021-replica-shared-state.md).
 */
async function storedSigningSecret(projects: ProjectStore, legacyPath: string): Promise<string> {
  let proposed = randomBytes(32).toString('base64url');
  try {
    const legacy = (await readFile(legacyPath, 'utf8')).trim();
    if (legacy.length >= 32) proposed = legacy;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return projects.ensureSetting('signing_secret', proposed);
}

/**
 * The research agent (chat endpoint) and generative-mode answers, on the chat model when
 * `ALEXANDRIA_CHAT_URL` is set and extractive otherwise. `tools` are the services the agent calls.
 */
function createAnswering(config: Config, logger: Logger, model: ChatModel | undefined, tools: ResearchTools) {
  const { chat } = config;
  const documentUrl = (pdfRef: string) =>
    `${publicUrlOf(config)}/api/fulltext?pdf_id=${encodeURIComponent(pdfRef)}`;
  // A small model on CPU reads every prompt token at ~100 a second (docs/decisions/0035-local-chat-model.md).
  const toolSet = chat.toolSet ?? (chatProviderOf(config) === 'local' ? 'compact' : 'full');
  const marks = chatAnswerMarks(config);
  // A 1.5B model on 2 cores writes ~10-25 tokens a second: the answer's length bounds a run's time.
  const maxAnswerTokens = chat.maxAnswerTokens ?? (chatProviderOf(config) === 'local' ? 320 : undefined);
  return {
    research: new ResearchService({
      modelName: chat.modelName,
      model,
      tools,
      documentUrl,
      // Offline (no upstream source) the agent reads only what is here (docs/decisions/0030-chat-details.md).
      readRemotePdfs: chat.readRemotePdfs ?? config.sources.enabled.length > 0,
      toolSet,
      searchFirst: chat.searchFirst ?? toolSet === 'compact',
      // The local model's context also holds the instructions, the tools' results and the answer.
      ...(chatProviderOf(config) === 'local' ? { historyTokens: Math.floor(chat.contextTokens / 4) } : {}),
      budgets: {
        maxSteps: chat.maxSteps ?? (chatProviderOf(config) === 'local' ? 4 : 8),
        maxTokens: chat.maxTokens,
        timeLimitMs: chatDeadlines(config).runMs,
        ...marks,
        toolTimeoutMs: chat.toolTimeoutMs,
        maxToolCallsPerStep: 4,
        maxTokensPerCall: chat.maxTokensPerCall,
        ...(maxAnswerTokens === undefined ? {} : { maxAnswerTokens }),
      },
    }),
    answers: new GenerativeAnswers({
      model,
      concurrency: chat.generativeConcurrency,
      timeoutMs: chat.generativeTimeoutMs,
      // The local model answers one record at a time: one deadline for the whole search.
      ...(chatProviderOf(config) === 'local' ? { budgetMs: chat.generativeTimeoutMs } : {}),
      documentUrl,
      onFallback: (error) => logger.warn({ err: error }, 'generative answer fell back to extractive'),
    }),
  };
}

/**
 * Deadlines of one model call and of one agent run: as configured, else longer for the local model,
 * which computes on the service's own CPU (docs/decisions/0035-local-chat-model.md).
 */
function chatDeadlines(config: Config): { callMs: number; runMs: number } {
  const local = chatProviderOf(config) === 'local';
  return {
    callMs: config.chat.timeoutMs ?? (local ? 300_000 : 60_000),
    runMs: config.chat.timeLimitMs ?? (local ? 600_000 : 120_000),
  };
}

/**
 * When the agent stops calling tools and answers: as configured, else for the local model a step
 * starting 45 s into the run, or one the run's longest step says would end past 50 s (a step of the
 * 1.5B model on 2 cores takes 10–40 s; its answer needs ~30–45 s after the last one); else never.
 */
function chatAnswerMarks(config: Config): Pick<AgentBudgets, 'answerAfterMs' | 'answerByMs'> {
  const local = chatProviderOf(config) === 'local';
  const answerAfterMs = config.chat.answerAfterMs ?? (local ? 45_000 : undefined);
  const answerByMs = config.chat.answerByMs ?? (local ? 50_000 : undefined);
  return {
    ...(answerAfterMs === undefined ? {} : { answerAfterMs }),
    ...(answerByMs === undefined ? {} : { answerByMs }),
  };
}

/** Which chat model runs: ALEXANDRIA_CHAT_PROVIDER, else an OpenAI-compatible API when one is configured. */
function chatProviderOf(config: Config): 'none' | 'openai' | 'local' {
  return config.chat.provider ?? (config.chat.url ? 'openai' : 'none');
}

/**
 * The configured chat model (the agent, generative answers, comprehensive analyses), if any: an
 * OpenAI-compatible API, or a GGUF model run in-process by llama.cpp (ALEXANDRIA_CHAT_PROVIDER=local).
 */
function chatModelOf(config: Config, logger: Logger, threads: number): ChatModel | undefined {
  const { chat } = config;
  const provider = chatProviderOf(config);
  if (provider === 'none') return undefined;
  if (provider === 'local') {
    if (!existsSync(chat.modelPath)) {
      throw new ConfigError([
        `ALEXANDRIA_CHAT_MODEL_PATH: no GGUF file at ${chat.modelPath} (run node scripts/setup-model.mjs, or set the path of a GGUF model)`,
      ]);
    }
    return new LlamaCppChatModel({
      modelPath: chat.modelPath,
      threads,
      contextTokens: chat.contextTokens,
      timeoutMs: chatDeadlines(config).callMs,
      temperature: chat.temperature,
      onLog: (level, message) => logger[level]({ model: basename(chat.modelPath) }, `llama.cpp: ${message}`),
    });
  }
  if (!chat.url) {
    throw new ConfigError(['ALEXANDRIA_CHAT_URL: required when ALEXANDRIA_CHAT_PROVIDER=openai']);
  }
  if (chat.url && !chat.model) {
    throw new ConfigError([
      'ALEXANDRIA_CHAT_MODEL: required when ALEXANDRIA_CHAT_URL is set (the model name at that API)',
    ]);
  }
  if (!chat.url || !chat.model) return undefined;
  return new OpenAiChatModel({
    baseUrl: chat.url,
    apiKey: chat.apiKey,
    model: chat.model,
    timeoutMs: chatDeadlines(config).callMs,
    maxRetries: chat.maxRetries,
    temperature: chat.temperature,
    tokenLimitParameter: chat.tokenLimitParameter,
  });
}
