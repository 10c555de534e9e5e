import { normalize } from '../../src/adapters/embeddings/pooling.js';
import type { EmbeddingModel, EmbedOptions } from '../../src/ports/embedding-model.js';
import { fakeEmbedding } from './fake-embeddings-server.js';

/**
 * A deterministic EmbeddingModel for service tests: hashed bags of words and word pairs (texts that
 * share words are close), one token per word or punctuation mark. It records every `embed` call.
 */
export class RecordingEmbeddingModel implements EmbeddingModel {
  readonly calls: Array<{ texts: string[]; inputType: EmbedOptions['inputType'] }> = [];
  readonly dimensions = 64;
  /** Milliseconds every `embed` takes (to observe concurrency and aborts). */
  delayMs = 0;

  constructor(
    readonly id = 'fake:bag-of-words',
    readonly maxTokens = 254,
  ) {}

  /** Texts embedded as documents (passages), over all calls. */
  get documentTexts(): string[] {
    return this.calls.filter((call) => call.inputType !== 'query').flatMap((call) => call.texts);
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    this.calls.push({ texts: [...texts], inputType: options.inputType });
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return texts.map((text) => normalize(Float32Array.from(fakeEmbedding(text, this.dimensions))));
  }

  countTokens(text: string): number {
    return text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)?.length ?? 0;
  }

  async close(): Promise<void> {}
}
