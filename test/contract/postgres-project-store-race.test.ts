import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresProjectStore } from '../../src/adapters/postgres/postgres-project-store.js';
import { needsPostgres } from '../helpers/requirements.js';
import { adminQuery, dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

// Kysely's own introspector read every schema of the database by name and failed with "schema …
// does not exist" when another one was dropped meanwhile (seen in a parallel test run).
describe.skipIf(await needsPostgres())('opening a PostgreSQL project store', () => {
  it('is not disturbed by other schemas dropped while it migrates', { timeout: 120_000 }, async () => {
    let churning = true;
    let dropped = 0;
    const churn = async () => {
      while (churning) {
        const other = uniqueSchema('churn');
        await adminQuery(
          `create schema ${other}; create table ${other}.t (id serial primary key, a text, b text, c text, d text)`,
        );
        await adminQuery(`drop schema ${other} cascade`);
        dropped += 1;
      }
    };
    const churners = [churn(), churn(), churn()];
    const failures: string[] = [];
    for (let round = 0; round < 15; round += 1) {
      const schema = uniqueSchema('race');
      schemas.push(schema);
      try {
        const store = await createPostgresProjectStore(testPostgresUrl, { schema, maxConnections: 2 });
        await store.close();
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    churning = false;
    await Promise.all(churners);
    expect(dropped).toBeGreaterThan(15);
    expect(failures).toEqual([]);
  });
});
