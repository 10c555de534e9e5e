import { afterAll, describe } from 'vitest';
import { createPostgresProjectStore } from '../../src/adapters/postgres/postgres-project-store.js';
import { needsPostgres } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { runProjectStoreContract } from './project-store.contract.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe.skipIf(await needsPostgres())('on PostgreSQL', () => {
  runProjectStoreContract('PostgreSQL', () => {
    const schema = uniqueSchema('projects');
    schemas.push(schema);
    return createPostgresProjectStore(testPostgresUrl, { schema, maxConnections: 2 });
  });
});
