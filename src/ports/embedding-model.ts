/**
 * A sentence encoder. Implementations: local ONNX Runtime in-process (default all-MiniLM-L6-v2) and
 * any OpenAI-compatible `/embeddings` endpoint. Vectors are L2-normalised, so cosine = dot product.
 */
export interface EmbeddingModel {
  /** Stable id of the model (part of every cache key of stored vectors). */
  readonly id: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Longest input in model tokens (word pieces); longer inputs are truncated. */
  readonly maxTokens: number;
  /** Embeds texts in order; throws AppError `upstream_unavailable`/`timeout` for remote failures. */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
  /** Number of model tokens of `text` (without special tokens), for sizing passages. */
  countTokens(text: string): number;
  close(): Promise<void>;
}
