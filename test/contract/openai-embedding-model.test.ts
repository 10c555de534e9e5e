import { afterAll, beforeAll } from 'vitest';
import { OpenAiEmbeddingModel } from '../../src/adapters/embeddings/openai-embedding-model.js';
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from '../fakes/fake-embeddings-server.js';
import { runEmbeddingModelContract } from './embedding-model.contract.js';

let server: FakeEmbeddingsServer;
beforeAll(async () => {
  server = await startFakeEmbeddingsServer();
});
afterAll(async () => {
  await server.close();
});

runEmbeddingModelContract(
  'OpenAI-compatible /embeddings (loopback fake)',
  async () =>
    new OpenAiEmbeddingModel({ baseUrl: server.baseUrl, model: 'fake-embed', timeoutMs: 5000, batchSize: 2 }),
);
