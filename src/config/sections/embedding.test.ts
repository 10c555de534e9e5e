import { describe, expect, it } from 'vitest';
import { loadConfig } from '../load-config.js';
import { defaultModelDir } from './embedding.js';

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
    expect(loadConfig({ ALEXANDRIA_EMBEDDING_MODEL_DIR: '/models/bge' }).embedding.modelDir).toBe(
      '/models/bge',
    );
  });

  it('rejects bad values with the variable name', () => {
    expect(() => loadConfig({ ALEXANDRIA_EMBEDDING_PROVIDER: 'tensorflow' })).toThrow(
      /ALEXANDRIA_EMBEDDING_PROVIDER/,
    );
    expect(() => loadConfig({ ALEXANDRIA_EMBEDDING_POOLING: 'sum' })).toThrow(/ALEXANDRIA_EMBEDDING_POOLING/);
  });
});
