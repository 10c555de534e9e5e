/**
 * A sentence encoder. Implementations: local ONNX Runtime in-process (default all-MiniLM-L6-v2) and
 * any OpenAI-compatible `/embeddings` endpoint. Vectors are L2-normalised, so cosine = dot product.
 * Every adapter passes `test/contract/embedding-model.contract.ts`.
 */
export interface EmbeddingModel {
  /** Stable id of the model (part of every cache key of stored vectors). */
  readonly id: string;
  /**
   * Length of every vector. A remote model may report 0 until its first `embed()` answered (the
   * API decides); stored vectors carry their own length, so callers rarely need this up front.
   */
  readonly dimensions: number;
  /**
   * Longest input, in tokens as `countTokens` counts them (without special tokens), that is embedded
   * whole; longer inputs are truncated, never rejected. 254 for MiniLM (max_seq_length 256 minus
   * [CLS] and [SEP]).
   */
  readonly maxTokens: number;
  /**
   * True when questions (`inputType: 'query'`) are embedded apart from documents (the ONNX model's
   * query worker thread), so a question's vector need not wait for a document batch in flight;
   * `FairEmbeddingQueue` then sends questions straight to the model. Absent or false: one path.
   */
  readonly separateQueryPath?: boolean;
  /**
   * Embeds texts in order, one vector per text (an empty list gives an empty list). `inputType`
   * lets models trained with instructions prefix questions and passages differently (default
   * `document`). Throws AppError `upstream_unavailable`/`timeout` for remote failures and
   * `internal` when a local model is missing; rejects with the signal's reason when aborted.
   */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * Number of model tokens of `text` (without special tokens), for sizing passages. Exact for a
   * local model; a conservative estimate (never below the real count for English text) for a
   * remote one whose tokenizer is unknown.
   */
  countTokens(text: string): number;
  /** Releases the model (worker threads, sessions, connections); `embed` fails afterwards. */
  close(): Promise<void>;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /** `query` for a question, `document` (default) for the passages it is matched against. */
  inputType?: 'query' | 'document';
  /**
   * A question waits for these texts (a few passages embedded for a document's first question):
   * run them on the question path when the model has one (`separateQueryPath`), whatever their
   * `inputType`. Ignored by models with one path.
   */
  urgent?: boolean;
  /**
   * Nobody waits for these texts (the index's record vectors): the model may run them at the
   * low CPU priority on every core it is allowed, so they take the cores only while requests
   * leave them idle. Ignored by models without such a path.
   */
  background?: boolean;
  /**
   * Keep at most this many tokens of each text (as `countTokens` counts them), when fewer than
   * `maxTokens`: a cheaper vector of a long text (record vectors, decision 0062). Models that cannot
   * cut by their own tokens (remote ones) embed the text as they would without it.
   */
  maxTokens?: number;
}
