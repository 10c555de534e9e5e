// A PostgreSQL restart or pg_terminate_backend under search load ended `serve` with "Unhandled
// 'error' event" (57P01): node-postgres emits `error` on a checked-out client when the server ends
// its connection, and the pool listens only while the client is idle. A connection held across
// statements (a search, `inTransaction`) had no listener. Every pool now comes from
// `createPostgresPool`: the loss fails that call with a 503 (`unavailable`, Retry-After) and the
// next call gets a fresh connection. A plain `pg.Pool` in the same steps ends the process (the
// first test shows it in a child process).
import { execFileSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresPool } from '../../src/adapters/postgres/postgres-pool.js';
import { StandbyRouter } from '../../src/adapters/postgres/standby-router.js';
import { inTransaction } from '../../src/adapters/postgres/transaction.js';
import { AppError } from '../../src/domain/errors.js';
import { adminQuery, dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';

const name = `alexandria_loss_${process.pid}`;
const withName = `${testPostgresUrl}${testPostgresUrl.includes('?') ? '&' : '?'}application_name=${name}`;

/** Ends the connections this test opened, as a restart or an operator would. */
const terminate = () =>
  adminQuery(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${name}'`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('a lost PostgreSQL connection', () => {
  it('ends a process that holds a plain pg.Pool client (the old behaviour), not one from createPostgresPool', () => {
    const script = (guarded: boolean) => `
      import pg from 'pg';
      import { createPostgresPool } from './src/adapters/postgres/postgres-pool.ts';
      const pool = ${guarded ? 'createPostgresPool(process.argv[1])' : 'new pg.Pool({ connectionString: process.argv[1] })'};
      pool.on('error', () => {});
      const client = await pool.connect();
      await client.query('select 1');
      const killer = new pg.Client({ connectionString: process.argv[2] });
      await killer.connect();
      await killer.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${name}_child'");
      await killer.end();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const failed = await client.query('select 1').then(() => 'answered', (error) => error.code ?? error.message);
      client.release();
      const again = await pool.query('select 1 as one');
      process.stdout.write(JSON.stringify({ failed, again: again.rows[0].one }));
      await pool.end();`;
    const run = (guarded: boolean) => {
      try {
        return {
          code: 0,
          out: execFileSync(
            process.execPath,
            [
              '--import',
              'tsx',
              '--input-type=module',
              '-e',
              script(guarded),
              `${testPostgresUrl}?application_name=${name}_child`,
              testPostgresUrl,
            ],
            { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: process.cwd() },
          ),
        };
      } catch (error) {
        const failed = error as { status: number; stderr: string };
        return { code: failed.status, out: failed.stderr };
      }
    };
    const plain = run(false);
    expect(plain.code).not.toBe(0);
    expect(plain.out).toMatch(/Unhandled 'error' event|terminating connection/);
    const guarded = run(true);
    expect(guarded).toEqual({ code: 0, out: JSON.stringify({ failed: 'unavailable', again: 1 }) });
  }, 30_000);

  it('fails the statement of a checked-out client with a 503 and Retry-After, and the pool goes on', async () => {
    const pool = createPostgresPool(withName);
    try {
      const client = await pool.connect();
      await client.query('select 1');
      await terminate();
      await sleep(200);
      const error = await rejection(client.query('select 1'));
      client.release();
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
      expect((error as AppError).retryAfterSeconds).toBeGreaterThan(0);
      expect((await pool.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('fails a transaction whose connection is ended mid-way with a 503, and the next one commits', async () => {
    const schema = uniqueSchema('loss');
    const pool = createPostgresPool(withName, { maxConnections: 2 });
    try {
      await pool.query(`create schema ${schema}; create table ${schema}.t (n int)`);
      const error = await rejection(
        inTransaction(pool, async (client) => {
          await client.query(`insert into ${schema}.t values (1)`);
          await terminate();
          await sleep(200);
          await client.query(`insert into ${schema}.t values (2)`);
        }),
      );
      expect((error as AppError).code).toBe('unavailable');
      await inTransaction(pool, (client) => client.query(`insert into ${schema}.t values (3)`));
      const rows = await pool.query<{ n: number }>(`select n from ${schema}.t order by n`);
      expect(rows.rows.map((row) => row.n)).toEqual([3]);
    } finally {
      await pool.end();
      await dropSchema(schema);
    }
  });

  it('turns a statement timeout and a refused connection into 503s', async () => {
    const pool = createPostgresPool(withName, { statementTimeoutMs: 100 });
    const refused = createPostgresPool('postgres://postgres@127.0.0.1:1/test', { connectTimeoutMs: 500 });
    try {
      expect(((await rejection(pool.query('select pg_sleep(2)'))) as AppError).code).toBe('unavailable');
      expect(((await rejection(refused.query('select 1'))) as AppError).code).toBe('unavailable');
      expect(((await rejection(refused.connect())) as AppError).code).toBe('unavailable');
      // A mistake in the statement is not an outage.
      const mistake = await rejection(pool.query('select * from no_such_table_here'));
      expect(mistake).not.toBeInstanceOf(AppError);
      expect((mistake as { code?: string }).code).toBe('42P01');
    } finally {
      await Promise.all([pool.end(), refused.end()]);
    }
  });
});

/** A TCP server that accepts connections and never answers: a standby stopped with SIGSTOP. */
async function hungServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, sockets, port: typeof address === 'object' && address ? address.port : 0 };
}

describe('a read replica that does not answer', () => {
  const schema = uniqueSchema('standby');
  afterAll(() => dropSchema(schema));

  it('is skipped within its budget and the primary answers, and tried again after the skip', async () => {
    const hung = await hungServer();
    const options = `-c search_path=${schema}`;
    const primary = createPostgresPool(testPostgresUrl, { serverOptions: options });
    const standby = createPostgresPool(`postgres://postgres@127.0.0.1:${hung.port}/test`, {
      serverOptions: options,
      connectTimeoutMs: 60_000,
    });
    let now = 1_000_000;
    const skips: string[] = [];
    const router = new StandbyRouter(primary, [standby], {
      timeoutMs: 300,
      skipMs: 30_000,
      now: () => now,
      onSkip: (_index, reason) => skips.push(reason),
    });
    try {
      await primary.query(
        `create schema ${schema}; create table ${schema}.paper_index_stats (data_version bigint); insert into ${schema}.paper_index_stats values (7)`,
      );
      const started = Date.now();
      const first = await router.read((pool) =>
        pool.query<{ v: string }>('select data_version as v from paper_index_stats'),
      );
      expect(first.pool).toBe(primary);
      expect(first.value.rows[0]?.v).toBe('7');
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(skips).toEqual(['no answer within 300 ms']);
      expect(router.skipped()).toBe(1);
      // While skipped, reads go straight to the primary: no further wait on the standby.
      const connectionsBefore = hung.sockets.length;
      const second = await router.read((pool) => pool.query('select 1'));
      expect(second.pool).toBe(primary);
      expect(hung.sockets.length).toBe(connectionsBefore);
      // After the skip the standby is tried again (and skipped again, still hung).
      now += 30_001;
      await router.read((pool) => pool.query('select 1'));
      expect(skips).toHaveLength(2);
    } finally {
      for (const socket of hung.sockets) socket.destroy();
      hung.server.close();
      await Promise.all([primary.end(), standby.end().catch(() => undefined)]);
    }
  });
});
