import { OnnxEmbeddingModel } from '../../src/adapters/embeddings/onnx-embedding-model.js';
import { defaultModelDir } from '../../src/config/sections/embedding.js';
import { runEmbeddingModelContract } from './embedding-model.contract.js';

// The real default model, installed by `node scripts/setup-model.mjs` (npm test runs it first).
runEmbeddingModelContract(
  'local ONNX all-MiniLM-L6-v2',
  async () => new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2' }),
);

// The same model on one worker thread for questions and passages alike (ALEXANDRIA_EMBEDDING_QUERY_THREAD=false).
runEmbeddingModelContract(
  'local ONNX all-MiniLM-L6-v2, one worker thread',
  async () =>
    new OnnxEmbeddingModel({ modelDir: defaultModelDir(), name: 'all-MiniLM-L6-v2', queryThread: false }),
);
