import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { AppError, UpstreamError } from '../../domain/errors.js';
import type { EmbeddingModel, EmbedOptions } from '../../ports/embedding-model.js';
import { normalize } from './pooling.js';

export interface OpenAiEmbeddingModelOptions {
  /** Base URL of the OpenAI-compatible API, e.g. `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  /** Bearer key; local servers accept any placeholder. */
  apiKey?: string | undefined;
  /** Model name at the API (`text-embedding-3-small`, `nomic-embed-text`, …). */
  model: string;
  /** Vector length to ask for (`dimensions`), for models that can shorten their vectors. */
  dimensions?: number | undefined;
  /** Longest input in tokens (default 8191, OpenAI's limit). */
  maxTokens?: number | undefined;
  /** Inputs per request (default 64). */
  batchSize?: number | undefined;
  /** Deadline of one request including its retries, in milliseconds. */
  timeoutMs: number;
  /** Retries of a failed request (429 honouring Retry-After, 5xx, connection errors); default 2. */
  maxRetries?: number | undefined;
  queryPrefix?: string | undefined;
  documentPrefix?: string | undefined;
}

const source = 'embedding-model';

/**
 * `EmbeddingModel` over any OpenAI-compatible `POST /embeddings` (OpenAI, vLLM, Ollama, TEI, …) with
 * the official `openai` client, which retries and honours Retry-After. Vectors are re-normalised
 * (not every server returns unit vectors) and put back in input order by their `index`.
 */
export class OpenAiEmbeddingModel implements EmbeddingModel {
  readonly id: string;
  readonly maxTokens: number;
  private readonly client: OpenAI;
  private observedDimensions: number | undefined;

  constructor(private readonly options: OpenAiEmbeddingModelOptions) {
    this.id = `openai:${options.model}${options.dimensions ? `:${options.dimensions}` : ''}`;
    this.maxTokens = options.maxTokens ?? 8191;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'unused',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs,
      logLevel: 'off',
    });
  }

  get dimensions(): number {
    return this.observedDimensions ?? this.options.dimensions ?? 0;
  }

  /**
   * The remote tokenizer is unknown, so this estimates high: about 1.4 tokens per word or
   * punctuation mark, and never fewer than one per 3.5 characters (WordPiece and BPE both split
   * long technical words).
   */
  countTokens(text: string): number {
    const pieces = text.match(/[\p{L}\p{N}]+|[^\p{L}\p{N}\s]/gu)?.length ?? 0;
    return Math.ceil(Math.max(pieces * 1.4, text.length / 3.5));
  }

  async embed(texts: string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    options.signal?.throwIfAborted();
    const prefix =
      (options.inputType === 'query' ? this.options.queryPrefix : this.options.documentPrefix) ?? '';
    const batchSize = this.options.batchSize ?? 64;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize).map((text) => prefix + text);
      vectors.push(...(await this.request(batch, options.signal)));
    }
    return vectors;
  }

  async close(): Promise<void> {}

  private async request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await this.client.embeddings.create(
        {
          model: this.options.model,
          // Empty strings are rejected by OpenAI; a space embeds as "nothing" everywhere.
          input: input.map((text) => (text.length === 0 ? ' ' : text)),
          encoding_format: 'float',
          ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
        },
        { signal: combined },
      );
    } catch (error) {
      throw this.mapError(error, signal, deadline);
    }
    return this.parse(response, input.length);
  }

  /** Checks the response shape (no blind trust in a third-party server) and orders it by index. */
  private parse(response: OpenAI.Embeddings.CreateEmbeddingResponse, count: number): Float32Array[] {
    const data = Array.isArray(response?.data) ? response.data : [];
    const vectors = new Array<Float32Array | undefined>(count);
    for (const [position, item] of data.entries()) {
      const index = Number.isInteger(item?.index) ? item.index : position;
      const values = item?.embedding as unknown;
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        !values.every((value) => typeof value === 'number')
      ) {
        throw new UpstreamError(source, 'The embeddings API sent a malformed vector', { retryable: false });
      }
      if (index >= 0 && index < count) vectors[index] = normalize(Float32Array.from(values));
    }
    const sizes = new Set(vectors.map((vector) => vector?.length));
    if (vectors.includes(undefined) || sizes.size !== 1) {
      throw new UpstreamError(
        source,
        `The embeddings API sent ${data.length} vectors of mixed or missing sizes for ${count} inputs`,
        { retryable: false },
      );
    }
    this.observedDimensions = (vectors[0] as Float32Array).length;
    return vectors as Float32Array[];
  }

  /** Client errors → AppError; an abort by the caller stays an abort (its reason is rethrown). */
  private mapError(error: unknown, signal: AbortSignal | undefined, deadline: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason ?? error;
    if (deadline.aborted || error instanceof APIConnectionTimeoutError) {
      return new AppError(
        'timeout',
        `The embeddings API did not answer within ${this.options.timeoutMs} ms`,
        {
          cause: error,
        },
      );
    }
    if (error instanceof AppError || error instanceof APIUserAbortError) return error;
    if (error instanceof APIConnectionError) {
      return new UpstreamError(source, `The embeddings API is unreachable: ${error.message}`, {
        cause: error,
      });
    }
    if (error instanceof APIError) {
      const status = typeof error.status === 'number' ? error.status : undefined;
      return new UpstreamError(
        source,
        `The embeddings API failed${status ? ` with HTTP ${status}` : ''}: ${error.message}`,
        {
          upstreamStatus: status,
          cause: error,
        },
      );
    }
    return new UpstreamError(
      source,
      `The embeddings API failed: ${(error as Error)?.message ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
}
