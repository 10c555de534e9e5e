import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/load-config.js';
import { defaultModelDir } from '../../config/sections/embedding.js';
import { createEmbeddingModel } from './create-embedding-model.js';
import { OnnxEmbeddingModel } from './onnx-embedding-model.js';
import { OpenAiEmbeddingModel } from './openai-embedding-model.js';

describe('embedding configuration', () => {
  it('defaults to the local ONNX all-MiniLM-L6-v2 in the user cache folder', () => {
    const { embedding } = loadConfig({});
    expect(embedding).toMatchObject({
      provider: 'onnx',
      model: 'all-MiniLM-L6-v2',
      batchSize: 16,
      threads: 0,
    });
    expect(embedding.modelDir).toBe(defaultModelDir());
    expect(defaultModelDir({ XDG_CACHE_HOME: '/srv/cache' })).toBe(
      '/srv/cache/alexandria/models/all-MiniLM-L6-v2',
    );
    const model = createEmbeddingModel(embedding);
    expect(model).toBeInstanceOf(OnnxEmbeddingModel);
    expect(model.id).toBe('onnx:all-MiniLM-L6-v2');
  });

  it('needs a URL for the OpenAI-compatible provider and names the variable', () => {
    const { embedding } = loadConfig({
      ALEXANDRIA_EMBEDDING_PROVIDER: 'openai',
      ALEXANDRIA_EMBEDDING_MODEL: 'nomic-embed-text',
    });
    expect(() => createEmbeddingModel(embedding)).toThrow(ConfigError);
    expect(() => createEmbeddingModel(embedding)).toThrow(/ALEXANDRIA_EMBEDDING_URL/);
    const remote = createEmbeddingModel({ ...embedding, url: 'http://127.0.0.1:11434/v1' });
    expect(remote).toBeInstanceOf(OpenAiEmbeddingModel);
    expect(remote.id).toBe('openai:nomic-embed-text');
  });

  it('rejects bad values with the variable name', () => {
    expect(() => loadConfig({ ALEXANDRIA_EMBEDDING_PROVIDER: 'tensorflow' })).toThrow(
      /ALEXANDRIA_EMBEDDING_PROVIDER/,
    );
    expect(() => loadConfig({ ALEXANDRIA_EMBEDDING_POOLING: 'sum' })).toThrow(/ALEXANDRIA_EMBEDDING_POOLING/);
  });
});
