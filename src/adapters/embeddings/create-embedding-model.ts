import type { Config } from '../../config/load-config.js';
import { ConfigError } from '../../config/load-config.js';
import type { EmbeddingModel } from '../../ports/embedding-model.js';
import { OnnxEmbeddingModel } from './onnx-embedding-model.js';
import { OpenAiEmbeddingModel } from './openai-embedding-model.js';

/**
 * The embedding model the configuration asks for (for the composition root). Constructing it does no
 * I/O: the ONNX model loads on first use, the remote one connects on first call.
 */
export function createEmbeddingModel(config: Config['embedding']): EmbeddingModel {
  const prefixes = { queryPrefix: config.queryPrefix, documentPrefix: config.documentPrefix };
  if (config.provider === 'openai') {
    if (!config.url) {
      throw new ConfigError([
        'ALEXANDRIA_EMBEDDING_URL: required when ALEXANDRIA_EMBEDDING_PROVIDER=openai (the …/v1 base URL of the embeddings API)',
      ]);
    }
    return new OpenAiEmbeddingModel({
      baseUrl: config.url,
      apiKey: config.apiKey,
      model: config.model,
      dimensions: config.dimensions,
      maxTokens: config.maxTokens,
      batchSize: config.batchSize,
      timeoutMs: config.timeoutMs,
      maxRetries: config.maxRetries,
      ...prefixes,
    });
  }
  return new OnnxEmbeddingModel({
    modelDir: config.modelDir,
    modelFile: config.modelFile,
    name: config.model,
    pooling: config.pooling,
    maxSequence: config.maxTokens,
    threads: config.threads,
    batchSize: config.batchSize,
    ...prefixes,
  });
}
