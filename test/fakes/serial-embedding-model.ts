import { normalize } from '../../src/adapters/embeddings/pooling.js';
import type { EmbeddingModel, EmbedOptions } from '../../src/ports/embedding-model.js';
import { fakeEmbedding } from './fake-embeddings-server.js';

/** One batch the fake worker ran, in the order it ran. */
export interface SerialRun {
  inputType: 'query' | 'document';
  texts: string[];
}

/**
 * An EmbeddingModel shaped like the local ONNX one: a single worker that runs one batch at a time,
 * first come first served, each `embed` call cut into batches of `batchSize` (as
 * OnnxEmbeddingModel does with its one piscina thread). Vectors are the deterministic bag of words of
 * RecordingEmbeddingModel. `hold()` stops the worker before its next batch until `release()`, so a
 * test can keep a document "being embedded" for as long as it needs, without timing anything.
 */
export class SerialEmbeddingModel implements EmbeddingModel {
  readonly dimensions = 64;
  readonly maxTokens = 254;
  /** Batches in the order the worker ran them. */
  readonly runs: SerialRun[] = [];
  private readonly waiting: Array<{ run: SerialRun; done: () => void }> = [];
  private working = false;
  private held = false;

  constructor(
    readonly id = 'fake:serial',
    private readonly batchSize = 16,
  ) {}

  /** Batches waiting for the worker (not counting the one running). */
  get queued(): number {
    return this.waiting.length;
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.work();
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    const inputType = options.inputType ?? 'document';
    for (let start = 0; start < texts.length; start += this.batchSize) {
      options.signal?.throwIfAborted();
      const run = { inputType, texts: texts.slice(start, start + this.batchSize) };
      await new Promise<void>((done) => {
        this.waiting.push({ run, done });
        this.work();
      });
    }
    return texts.map((text) => normalize(Float32Array.from(fakeEmbedding(text, this.dimensions))));
  }

  countTokens(text: string): number {
    return text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)?.length ?? 0;
  }

  async close(): Promise<void> {}

  private work(): void {
    if (this.working || this.held) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.working = true;
    // Each batch takes a turn of the event loop, like a reply from a worker thread.
    setImmediate(() => {
      this.runs.push(next.run);
      this.working = false;
      next.done();
      this.work();
    });
  }
}
