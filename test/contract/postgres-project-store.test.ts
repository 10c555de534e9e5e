import { afterAll, describe } from 'vitest';
import { createPostgresProjectStore } from '../../src/adapters/postgres/postgres-project-store.js';
import { needsPostgres } from '../helpers/requirements.js';
import { adminQuery, dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { runOthersMigrationCase, runProjectStoreContract } from './project-store.contract.js';

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
  runOthersMigrationCase('PostgreSQL', async () => {
    const schema = uniqueSchema('projects');
    schemas.push(schema);
    return {
      open: () => createPostgresProjectStore(testPostgresUrl, { schema, maxConnections: 2 }),
      forget: (migration) =>
        adminQuery(`DELETE FROM "${schema}".project_store_migrations WHERE name = '${migration}'`),
    };
  });
});
