import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeEmbeddingsServer,
  startFakeEmbeddingsServer,
} from '../../../test/fakes/fake-embeddings-server.js';
import { OpenAiEmbeddingModel, type OpenAiEmbeddingModelOptions } from './openai-embedding-model.js';

describe('OpenAiEmbeddingModel against a loopback /embeddings', () => {
  let server: FakeEmbeddingsServer;
  beforeAll(async () => {
    server = await startFakeEmbeddingsServer();
  });
  afterAll(() => server.close());

  const create = (options: Partial<OpenAiEmbeddingModelOptions> = {}) =>
    new OpenAiEmbeddingModel({
      baseUrl: server.baseUrl,
      model: 'text-embed',
      timeoutMs: 3000,
      maxRetries: 1,
      ...options,
    });

  it('batches inputs, sends model, key and float encoding, and restores input order', async () => {
    server.requests.length = 0;
    const model = create({ apiKey: 'sk-test', batchSize: 2, dimensions: 32, queryPrefix: 'query: ' });
    const texts = ['alpha beta', 'gamma delta', 'alpha beta gamma', 'epsilon', 'zeta'];
    const vectors = await model.embed(texts);
    expect(server.requests.map((request) => request.input)).toEqual([
      ['alpha beta', 'gamma delta'],
      ['alpha beta gamma', 'epsilon'],
      ['zeta'],
    ]);
    expect(server.requests[0]).toMatchObject({
      model: 'text-embed',
      dimensions: 32,
      encodingFormat: 'float',
      authorization: 'Bearer sk-test',
    });
    expect(model.dimensions).toBe(32);
    expect(model.id).toBe('openai:text-embed:32');
    // The fake answers in reverse order: vector 0 must still be text 0's (shares both words with text 2).
    const dot = (a: Float32Array, b: Float32Array) =>
      a.reduce((sum, value, index) => sum + value * (b[index] as number), 0);
    const [first, second, third] = vectors as [Float32Array, Float32Array, Float32Array];
    expect(dot(first, third)).toBeGreaterThan(dot(second, third));
    await model.embed(['what is alpha'], { inputType: 'query' });
    expect(server.requests.at(-1)?.input).toEqual(['query: what is alpha']);
  });

  it('retries a 503 and a 429 with Retry-After, then succeeds', async () => {
    server.requests.length = 0;
    server.failNext(503);
    server.failNext(429, 1, { 'retry-after': '0' });
    const model = create({ maxRetries: 2 });
    const [vector] = await model.embed(['retry me']);
    expect(vector?.length).toBe(64);
    expect(server.requests).toHaveLength(3);
  });

  it('fails with upstream_unavailable (502) after the retries, and at once on 401', async () => {
    server.requests.length = 0;
    server.failNext(500, 2);
    await expect(create().embed(['x'])).rejects.toMatchObject({
      code: 'upstream_unavailable',
      status: 502,
      upstreamStatus: 500,
    });
    expect(server.requests).toHaveLength(2);
    server.requests.length = 0;
    server.failNext(401);
    await expect(create().embed(['x'])).rejects.toMatchObject({
      code: 'upstream_unavailable',
      upstreamStatus: 401,
      retryable: false,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('fails with timeout (504) when the API is slower than the deadline', async () => {
    // The API answers after 5 s; the model gives up at 300 ms (measured: 0.31 s in all).
    server.delayMs = 5000;
    try {
      const started = performance.now();
      await expect(create({ timeoutMs: 300, maxRetries: 0 }).embed(['slow'])).rejects.toMatchObject({
        code: 'timeout',
        status: 504,
      });
      expect(performance.now() - started).toBeLessThan(3500);
    } finally {
      server.delayMs = 0;
    }
  });

  it('rejects malformed answers and unreachable servers as upstream_unavailable', async () => {
    server.replyNextWith({ object: 'list', data: [{ index: 0, embedding: 'not numbers' }] });
    await expect(create().embed(['x'])).rejects.toMatchObject({
      code: 'upstream_unavailable',
      message: /malformed/,
    });
    server.replyNextWith({ object: 'list', data: [] });
    await expect(create().embed(['x', 'y'])).rejects.toMatchObject({ code: 'upstream_unavailable' });
    const closed = new OpenAiEmbeddingModel({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      timeoutMs: 2000,
      maxRetries: 0,
    });
    await expect(closed.embed(['x'])).rejects.toMatchObject({
      code: 'upstream_unavailable',
      message: /unreachable/,
    });
  });

  it('estimates tokens on the high side of WordPiece counts', () => {
    const model = create();
    // all-MiniLM-L6-v2 counts 32 word pieces here (see the ONNX adapter's reference fixture).
    const text = 'Café au lait spots — naïve résumé of Ångström-scale 3D structures (n = 1,024; p < 0.05).';
    expect(model.countTokens(text)).toBeGreaterThanOrEqual(30);
    expect(model.countTokens('')).toBe(0);
  });
});
