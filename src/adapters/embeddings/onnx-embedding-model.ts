import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { AppError, isAppError } from '../../domain/errors.js';
import { workerModule } from '../../platform/worker-file.js';
import type { EmbeddingModel, EmbedOptions } from '../../ports/embedding-model.js';
import type { EmbedBatchResult, EmbedBatchTask, OnnxWorkerData } from './onnx-embedding-worker.js';
import { type OnnxModelFolder, readOnnxModelFolder } from './onnx-model-folder.js';
import type { Pooling } from './pooling.js';
import { TokenEncoder } from './token-encoder.js';

export interface OnnxEmbeddingModelOptions {
  /** Folder with the ONNX file and tokenizer.json (see `readOnnxModelFolder`). */
  modelDir: string;
  /** ONNX file inside the folder; default the first of model.onnx, onnx/model.onnx, onnx/model_quantized.onnx. */
  modelFile?: string | undefined;
  /** Model name; the id is `onnx:<name>`. */
  name: string;
  /** Overrides the folder's pooling. */
  pooling?: Pooling | undefined;
  /** Overrides the longest input (ids including special tokens). */
  maxSequence?: number | undefined;
  /** ONNX Runtime intra-op threads; 0 or absent = half the available cores, at least 1 (`defaultOnnxThreads`). */
  threads?: number | undefined;
  /** Texts per ONNX Runtime run (default 16). */
  batchSize?: number | undefined;
  queryPrefix?: string | undefined;
  documentPrefix?: string | undefined;
  /** The worker thread (and its ~100 MB session) exits after this long without work (default 15 min). */
  idleTimeoutMs?: number | undefined;
  /**
   * Questions (`inputType: 'query'`) are embedded on a second worker thread with its own session
   * (one intra-op thread), so a question's vector never waits for a document batch in flight
   * (default true). Off: one worker runs both, one batch at a time.
   */
  queryThread?: boolean | undefined;
  /**
   * Worker threads for background texts (`background: true`: the index's record vectors), each
   * with one intra-op thread at a low CPU priority (`backgroundNice`), batches run side by side; 0 or
   * absent: background texts take the document worker, one batch at a time.
   */
  backgroundWorkers?: number | undefined;
  /**
   * Nice value of the background workers' threads (Linux; default 10): requests at 0 take the
   * cores first, yet the walk keeps about a tenth of a busy core instead of starving (19 did).
   */
  backgroundNice?: number | undefined;
  /**
   * ONNX file of the folder the background workers run instead of the main one, when it exists
   * (the int8 model `scripts/setup-model.mjs` prepares, decision 0062).
   */
  backgroundModelFile?: string | undefined;
  /** Where ONNX Runtime computes (default the CPU; `cuda` needs onnxruntime-node's CUDA binaries and a GPU). */
  device?: 'cpu' | 'cuda' | undefined;
}

/**
 * Which worker an embed call runs on: document batches, question vectors (short texts), or
 * background batches (record vectors, at a low priority).
 */
type WorkerLane = 'document' | 'query' | 'background';

/** Nice value of the background workers' threads unless configured (see `backgroundNice`). */
const defaultBackgroundNice = 10;

/**
 * Intra-op threads when none are configured: half the cores, at least one. Measured on the shared
 * 2-core box: 1 thread embedded 4.3–5.5 passages/s against 3.6–3.7 for 2, and a question took 24 ms
 * (p50) against 52 ms — ORT's threads wait on each other when the cores are busy with other work
 * (PDF parsing, HTTP), which on a 2-core server they usually are.
 */
export function defaultOnnxThreads(): number {
  return Math.max(1, Math.floor(availableParallelism() / 2));
}

/**
 * all-MiniLM-L6-v2 (or any ONNX sentence encoder) on native ONNX Runtime in a worker thread, with our
 * own tokenisation (tokenizers.js), mean/CLS/max pooling and L2 normalisation. Nothing is loaded
 * until first use: `countTokens` reads the tokenizer, `embed` starts the worker and its session.
 * Texts are sorted by length before batching so short texts are not padded to long ones. Questions
 * (`inputType: 'query'`) have a second worker thread of their own unless `queryThread` is off, so a
 * question never waits for a document batch in flight (issue 13, docs/decisions/0018).
 */
/**
 * How long close() waits for the batch ONNX Runtime is running (queued batches are dropped). A batch
 * of 16 passages takes well under a second on a quiet core; the bound is only a guard against a
 * worker that never answers, since terminating one mid-run aborts the process.
 */
const runningBatchCloseTimeoutMs = 10 * 60_000;

export class OnnxEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  /** True unless `queryThread` is off: questions have their own worker thread. */
  readonly separateQueryPath: boolean;
  private loaded: { folder: OnnxModelFolder; encoder: TokenEncoder } | undefined;
  private readonly pools = new Map<WorkerLane, Piscina>();
  private observedDimensions: number | undefined;
  private closed = false;
  /** Seconds the workers spent per stage over every batch so far (benchmarks read it). */
  readonly stageSeconds = { tokenize: 0, inference: 0, pooling: 0 };

  constructor(private readonly options: OnnxEmbeddingModelOptions) {
    this.id = `onnx:${options.name}`;
    this.separateQueryPath = options.queryThread ?? true;
  }

  get dimensions(): number {
    return this.observedDimensions ?? this.load().folder.dimensions ?? 0;
  }

  get maxTokens(): number {
    return this.load().encoder.maxTextTokens;
  }

  countTokens(text: string): number {
    return this.load().encoder.count(text);
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    if (this.closed) throw new AppError('internal', 'The embedding model was closed');
    if (texts.length === 0) return [];
    const prefix =
      (options.inputType === 'query' ? this.options.queryPrefix : this.options.documentPrefix) ?? '';
    const order = texts
      .map((_, index) => index)
      .sort((a, b) => (texts[b]?.length ?? 0) - (texts[a]?.length ?? 0));
    const batchSize = this.options.batchSize ?? 16;
    const vectors = new Array<Float32Array>(texts.length);
    const lane = this.laneOf(options);
    const pool = this.workerPool(lane);
    const batches: number[][] = [];
    for (let start = 0; start < order.length; start += batchSize)
      batches.push(order.slice(start, start + batchSize));
    // Background batches run side by side, one per background worker; the others one at a time.
    const sideBySide = lane === 'background' ? (this.options.backgroundWorkers ?? 1) : 1;
    let next = 0;
    const runBatches = async () => {
      while (next < batches.length) {
        // Checked between batches: an abort stops the work without killing the worker's session.
        options.signal?.throwIfAborted();
        const batch = batches[next++] as number[];
        const task: EmbedBatchTask = {
          texts: batch.map((index) => prefix + (texts[index] as string)),
          ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        };
        const result = await this.runTask(pool, task);
        batch.forEach((index, row) => {
          vectors[index] = result.vectors.slice(row * result.dimensions, (row + 1) * result.dimensions);
        });
        if (lane !== 'query') this.warmQueryWorker();
      }
    };
    await Promise.all(Array.from({ length: Math.min(sideBySide, batches.length) }, runBatches));
    return vectors;
  }

  private laneOf(options: EmbedOptions): WorkerLane {
    if ((options.inputType === 'query' || options.urgent === true) && this.separateQueryPath) return 'query';
    if (options.background === true && (this.options.backgroundWorkers ?? 0) > 0) return 'background';
    return 'document';
  }

  private async runTask(pool: Piscina, task: EmbedBatchTask): Promise<EmbedBatchResult> {
    let result: EmbedBatchResult;
    try {
      result = (await pool.run(task)) as EmbedBatchResult;
    } catch (error) {
      if (isAppError(error)) throw error;
      // A batch still queued when the pool closed is aborted by piscina: say why.
      if (this.closed) throw new AppError('internal', 'The embedding model was closed', { cause: error });
      const device =
        this.options.device === 'cuda'
          ? ' (ALEXANDRIA_EMBEDDING_DEVICE=cuda needs onnxruntime-node installed with its CUDA binaries, a GPU and CUDA 12 libraries)'
          : '';
      throw new AppError('internal', `The embedding model failed: ${(error as Error).message}${device}`, {
        cause: error,
      });
    }
    this.observedDimensions = result.dimensions;
    this.stageSeconds.tokenize += result.stages.tokenize / 1000;
    this.stageSeconds.inference += result.stages.inference / 1000;
    this.stageSeconds.pooling += result.stages.pooling / 1000;
    return result;
  }

  /**
   * Stops taking work, drops the batches still queued (their callers get "closed"), lets the batch
   * ONNX Runtime is running finish, then stops the worker. Terminating a worker while a native
   * `run()` is in flight aborts the whole process ("terminate called after throwing an instance of
   * 'Napi::Error'"): the running batch is always waited for (regressions: closing the container
   * during a cold PDF's first question; piscina's own 30 s close timeout, reached under load while
   * a queue of batches drained, then terminated the worker mid-run and crashed a CI test process).
   */
  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close({ force: true })));
  }

  private load(): { folder: OnnxModelFolder; encoder: TokenEncoder } {
    if (!this.loaded) {
      const folder = readOnnxModelFolder(this.options.modelDir, {
        modelFile: this.options.modelFile,
        pooling: this.options.pooling,
        maxSequence: this.options.maxSequence,
      });
      this.loaded = {
        folder,
        encoder: new TokenEncoder(folder.tokenizerJson, folder.tokenizerConfig, folder.maxSequence),
      };
    }
    return this.loaded;
  }

  /**
   * The worker of `lane`, started on first use. The query worker runs one intra-op thread: a
   * question is one short text, and its thread must not fight the document worker's for the cores.
   */
  private workerPool(lane: WorkerLane): Piscina {
    let pool = this.pools.get(lane);
    if (!pool) {
      const { folder } = this.load();
      const threads = lane === 'document' ? this.options.threads || defaultOnnxThreads() : 1;
      const device = this.options.device ?? 'cpu';
      const workerData: OnnxWorkerData = {
        folder: lane === 'background' ? this.backgroundFolder(folder) : folder,
        threads,
        device,
        ...(lane === 'background' ? { nice: this.options.backgroundNice ?? defaultBackgroundNice } : {}),
      };
      pool = new Piscina({
        ...workerModule(new URL('./onnx-embedding-worker.js', import.meta.url)),
        workerData,
        minThreads: 0,
        maxThreads: lane === 'background' ? Math.max(1, this.options.backgroundWorkers ?? 1) : 1,
        idleTimeout: this.options.idleTimeoutMs ?? 15 * 60_000,
        // Never terminate a worker mid-run (see close()): wait for the batch in flight, however slow.
        closeTimeout: runningBatchCloseTimeoutMs,
      });
      this.pools.set(lane, pool);
    }
    return pool;
  }

  /** The folder as the background workers see it: its int8 file when there is one. */
  private backgroundFolder(folder: OnnxModelFolder): OnnxModelFolder {
    const file = this.options.backgroundModelFile;
    if (!file) return folder;
    const path = join(this.options.modelDir, file);
    return existsSync(path) ? { ...folder, modelPath: path } : folder;
  }

  /**
   * Starts the query worker once a document or background batch is done, if no question has started it, so the
   * first question asked while a document embeds does not wait for a session to load (~0.3 s).
   * Not earlier: the two workers loading at once would slow the document worker's start.
   */
  private warmQueryWorker(): void {
    if (!this.separateQueryPath || this.closed || this.pools.has('query')) return;
    const warmUp: EmbedBatchTask = { texts: [] };
    // A failed warm-up is not an error of its own: the first question reports it.
    this.workerPool('query')
      .run(warmUp)
      .catch(() => undefined);
  }
}
