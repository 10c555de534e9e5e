import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The smoke tier: a few minutes of the suite that touch every native piece and every layer, with
 * data the tests make themselves (no shared data, PostgreSQL or Redis). scripts/smoke.mjs runs it
 * under Node 22 and 24 (`npm run test:smoke`); the full suite runs under Node 20.
 */
export const smokeFiles = [
  // HTTP, auth, projects, OpenAPI, rate limits; the SQLite project store (better-sqlite3).
  'test/integration/foundation-http.test.ts',
  'test/contract/sqlite-project-store.test.ts',
  // Search over SQLite with the ranking extension built from native/.
  'test/contract/sqlite-paper-index.test.ts',
  // ONNX Runtime (onnxruntime-node) and llama.cpp (node-llama-cpp) with the real models.
  'test/contract/onnx-embedding-model.test.ts',
  'test/contract/llama-cpp-chat-model.test.ts',
  // The built CLI: ingest a dump and a PDF (PDFium in worker threads), serve, search, read, ask, MCP.
  'test/integration/cli-journey.test.ts',
];

export default defineConfig({ ...base, test: { ...base.test, include: smokeFiles } });
