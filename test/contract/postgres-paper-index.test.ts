import { afterAll, describe } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { needsPostgresExtension } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { runPaperIndexContract } from './paper-index.contract.js';
import { runSciFactRankingParity } from './postgres-scifact-parity.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

function freshIndex() {
  const schema = uniqueSchema('paper_index');
  schemas.push(schema);
  return createPostgresPaperIndex(testPostgresUrl, { schema, maxConnections: 3 });
}

describe.skipIf(await needsPostgresExtension())('on PostgreSQL', () => {
  runPaperIndexContract('PostgreSQL', freshIndex);
  runSciFactRankingParity('PostgreSQL BM25 (alexandria_pg)', freshIndex);
});
