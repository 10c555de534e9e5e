// An idle pooled connection that PostgreSQL ends (a restart, a failover, `drop database … with
// (force)`, an operator's pg_terminate_backend) raised an 'error' on a pool without a listener: an
// uncaught exception that ends the process (seen in CI as an unhandled error after a test dropped
// its database). Both PostgreSQL adapters now report it and go on with a new connection.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { createPostgresProjectStore } from '../../src/adapters/postgres/postgres-project-store.js';
import { emptyPaper } from '../../src/domain/paper.js';
import { needsPostgresExtension } from '../helpers/requirements.js';
import { adminQuery as admin, testPostgresUrl } from '../helpers/services.js';
import { query } from './paper-index.contract.js';

const database = `alexandria_idle_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const databaseUrl = testPostgresUrl.replace(/\/[^/]*$/, `/${database}`);

/** Ends every connection to this test's database, as a server restart would. */
const endConnections = () =>
  admin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}'`);

/** Resolves once `errors` holds an entry (the pool is told asynchronously). */
async function reported(errors: unknown[]): Promise<void> {
  for (let tries = 0; tries < 100 && errors.length === 0; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

const postgresMissing = await needsPostgresExtension();

beforeAll(async () => {
  await admin(`create database ${database}`);
  await admin(`alter database ${database} owner to postgres`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('create extension if not exists alexandria_pg');
  await client.end();
});
afterAll(async () => {
  await admin(`drop database if exists ${database} with (force)`);
});

describe.skipIf(postgresMissing)('PostgreSQL adapters when the server ends their idle connections', () => {
  it('the paper index reports it, does not crash, and answers the next search', async () => {
    const errors: unknown[] = [];
    const index = await createPostgresPaperIndex(databaseUrl, {
      onConnectionError: (error) => errors.push(error),
    });
    try {
      await index.upsert([{ ...emptyPaper('Glacier melt under warming'), doi: '10.9/glacier' }]);
      const search = query({ should: [{ kind: 'term', text: 'glacier' }] });
      expect((await index.search(search)).total).toBe(1);
      await endConnections();
      await reported(errors);
      expect(errors.length).toBeGreaterThan(0);
      expect((errors[0] as { code?: string }).code).toBe('57P01');
      // What is reported (and logged) is the code and message: pg attached the client, with the
      // backend's cancel key, to the error itself, and the log line printed it whole.
      expect(Object.keys(errors[0] as object).sort()).toEqual(['code', 'message']);
      expect(JSON.stringify(errors[0])).not.toContain('secretKey');
      expect((await index.search(search)).total).toBe(1);
    } finally {
      await index.close();
    }
  });

  it('the project store reports it, does not crash, and answers the next call', async () => {
    const errors: unknown[] = [];
    const store = await createPostgresProjectStore(databaseUrl, {
      schema: 'idle_projects',
      onConnectionError: (error) => errors.push(error),
    });
    try {
      await store.ensureTenant('lab');
      const project = await store.createProject('lab', { id: 'prj_glaciers', name: 'Glaciers' });
      await endConnections();
      await reported(errors);
      expect(errors.length).toBeGreaterThan(0);
      expect((await store.listProjects('lab')).map((each) => each.id)).toContain(project.id);
    } finally {
      await store.close();
    }
  });
});
