import { OnnxEmbeddingModel } from '../adapters/embeddings/onnx-embedding-model.js';
import { OpenAiEmbeddingModel } from '../adapters/embeddings/openai-embedding-model.js';
import type { ThreadShares } from '../config/cpu-budget.js';
import { type Config, ConfigError } from '../config/load-config.js';
import type { Logger } from '../platform/logger.js';
import type { WorkTally } from '../platform/work-tally.js';
import type { Cache } from '../ports/cache.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { PaperIndex } from '../ports/paper-index.js';
import { RecordVectorsJob } from '../services/search/record-vectors-job.js';
import { scheduleRecordVectors } from '../services/search/record-vectors-schedule.js';
import { SearchService } from '../services/search-service.js';

/**
 * The sentence encoder for questions to PDFs and record vectors: local ONNX Runtime by default, or
 * an OpenAI-compatible `/embeddings` API (ALEXANDRIA_EMBEDDING_PROVIDER=openai).
 */
export function createEmbeddingModel(
  settings: Config['embedding'],
  threads: Pick<ThreadShares, 'embedding' | 'embeddingBackground'> = { embedding: 1, embeddingBackground: 1 },
): EmbeddingModel {
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
    threads: threads.embedding,
    backgroundWorkers: threads.embeddingBackground,
    backgroundModelFile: settings.backgroundModelFile,
    backgroundNice: settings.backgroundNice,
    device: settings.device,
    queryThread: settings.queryThread,
    batchSize: settings.batchSize,
    queryPrefix: settings.queryPrefix,
    documentPrefix: settings.documentPrefix,
  });
}

/** Record vectors are on (ALEXANDRIA_RECORD_VECTORS) and `index` stores them (decision 0036). */
export function recordVectorsOn(search: Config['search'], index: PaperIndex): boolean {
  return search.recordVectors && RecordVectorsJob.supported(index);
}

/**
 * The id of the model record vectors are computed with (decision 0036), when they are on and
 * `index` stores them; the model is not loaded. Used by `alexandria status` and `alexandria ingest`.
 */
export async function recordVectorModelOf(config: Config, index: PaperIndex): Promise<string | undefined> {
  if (!recordVectorsOn(config.search, index)) return undefined;
  const model = createEmbeddingModel(config.embedding);
  await model.close();
  return model.id;
}

/**
 * The search of the local index: BM25, hybrid with record vectors where present when they are on
 * (decision 0036), answers cached for ALEXANDRIA_SEARCH_CACHE_TTL_SECONDS.
 */
export function createLocalSearch(
  settings: Config['search'],
  dependencies: { index: PaperIndex; cache: Cache; embeddings: EmbeddingModel; logger: Logger },
): SearchService {
  const { index, cache, embeddings, logger } = dependencies;
  return new SearchService(index, cache, {
    cacheTtlSeconds: settings.cacheTtlSeconds,
    hybrid: recordVectorsOn(settings, index)
      ? {
          model: embeddings,
          candidates: settings.hybridCandidates,
          deadlineMs: settings.hybridDeadlineMs,
          denseWeight: settings.hybridDenseWeight,
          onFallback: (error: unknown) =>
            logger.debug({ err: error }, 'dense ranking of a search failed: BM25 order kept'),
        }
      : undefined,
  });
}

/**
 * Record vectors as a queued walk, one at a time across replicas, run where jobs run (decision
 * 0036). Started only in a process that keeps the index up to date (`serve`, `worker`) and when
 * record vectors are on; `close` stops the timer and the walk (before the queue, model and index).
 */
export function startRecordVectors(
  settings: Config['search'],
  dependencies: {
    index: PaperIndex;
    embeddings: EmbeddingModel;
    jobs: JobQueue;
    work: WorkTally;
    logger: Logger;
    /** This process keeps the index up to date (a server in the background, or a job runner). */
    keepsIndex: boolean;
    /** This process runs queued jobs. */
    runsJobs: boolean;
  },
): { close(): Promise<void> } {
  const { index, embeddings, jobs, work, logger } = dependencies;
  if (!dependencies.keepsIndex || !recordVectorsOn(settings, index)) return { close: async () => {} };
  const walker = new RecordVectorsJob(index, embeddings, {
    batchSize: settings.recordVectorsBatch,
    maxTokens: settings.recordVectorTokens,
    pauseMs: settings.recordVectorsPauseMs,
    idleMs: settings.recordVectorsIdleMs,
    onBatch: ({ stored }) => {
      work.recordVectorsEmbedded += stored;
    },
  });
  const stopScheduling = scheduleRecordVectors(jobs, walker, {
    run: dependencies.runsJobs,
    enqueue: true,
    idleMs: settings.recordVectorsIdleMs,
    onError: (error) => logger.warn({ err: error }, 'queueing the record-vector walk failed'),
  });
  return {
    async close() {
      stopScheduling();
      await walker.stop();
    },
  };
}
