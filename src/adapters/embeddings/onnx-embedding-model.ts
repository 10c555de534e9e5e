import { availableParallelism } from 'node:os';
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
}

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
 * Texts are sorted by length before batching so short texts are not padded to long ones.
 */
export class OnnxEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  private loaded: { folder: OnnxModelFolder; encoder: TokenEncoder } | undefined;
  private pool: Piscina | undefined;
  private observedDimensions: number | undefined;
  private closed = false;

  constructor(private readonly options: OnnxEmbeddingModelOptions) {
    this.id = `onnx:${options.name}`;
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
    const pool = this.workerPool();
    for (let start = 0; start < order.length; start += batchSize) {
      // Checked between batches: an abort stops the work without killing the worker's session.
      options.signal?.throwIfAborted();
      const batch = order.slice(start, start + batchSize);
      const task: EmbedBatchTask = { texts: batch.map((index) => prefix + (texts[index] as string)) };
      let result: EmbedBatchResult;
      try {
        result = (await pool.run(task)) as EmbedBatchResult;
      } catch (error) {
        if (isAppError(error)) throw error;
        throw new AppError('internal', `The embedding model failed: ${(error as Error).message}`, {
          cause: error,
        });
      }
      this.observedDimensions = result.dimensions;
      batch.forEach((index, row) => {
        vectors[index] = result.vectors.slice(row * result.dimensions, (row + 1) * result.dimensions);
      });
    }
    return vectors;
  }

  /**
   * Stops taking work, lets the batch ONNX Runtime is running finish, then stops the worker.
   * Terminating a worker while a native `run()` is in flight aborts the whole process
   * ("terminate called after throwing an instance of 'Napi::Error'"), so the pool is drained, not
   * destroyed (regression: closing the container during a cold PDF's first question).
   */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
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

  private workerPool(): Piscina {
    if (!this.pool) {
      const { folder } = this.load();
      const threads = this.options.threads || defaultOnnxThreads();
      const workerData: OnnxWorkerData = { folder, threads };
      this.pool = new Piscina({
        ...workerModule(new URL('./onnx-embedding-worker.js', import.meta.url)),
        workerData,
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: this.options.idleTimeoutMs ?? 15 * 60_000,
      });
    }
    return this.pool;
  }
}
