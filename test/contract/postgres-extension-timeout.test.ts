import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateCluster, startPrivateCluster } from '../helpers/pg-cluster.js';
import {
  searchArguments,
  searchSql,
  syntheticWords,
  writeSyntheticIndex,
} from '../helpers/pg-extension-synthetic.js';

/**
 * A statement_timeout (or a cancel) ends a long alexandria_inverted_search promptly (decision
 * 0039): every loop of the search checks for interrupts. 1.2 checked none, so a search spent all
 * of its time before the timeout was noticed. Each search below is made long by one stage of the
 * C code (scoring, phrase matching) over a synthetic index, runs once to completion, then again
 * under a 100 ms statement_timeout, which must end it with SQLSTATE 57014 in well under half the
 * time (measured: ~0.1–0.2 s against 2–8 s). The figure at 1M records is the bench's
 * (`npm run bench -- postgres-index`).
 */
const documents = 8000;
/** The schema searched: `broad` (8,000 documents), or a larger one on a machine where that is quick. */
let schema = 'broad';
let grown = 0;
let cluster: PrivateCluster;
let client: pg.Client;
/** Whether the search takes the schema (1.3); else (to show 1.2's behaviour) it reads the search_path. */
let named = true;

beforeAll(async () => {
  cluster = await startPrivateCluster();
  client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  await client.query('CREATE EXTENSION alexandria_pg');
  await writeSyntheticIndex(client, 'broad', documents);
  const found = await client.query(
    "SELECT to_regprocedure('alexandria_inverted_search(regnamespace, int8[], int4[], int4[], int4[], int4[], float8[], float8[], float8, int4, bool, int4, int4, int4, int4, int4)') IS NOT NULL AS named",
  );
  named = found.rows[0].named;
});

/** Moves to an index 4× larger (at most twice) while the search takes under a second to complete. */
async function longEnough(shape: () => unknown[]): Promise<{ ms: number; code: string | null }> {
  let full = await timed(shape());
  while (full.ms < 1000 && grown < 2) {
    grown += 1;
    schema = `broad_${grown}`;
    await writeSyntheticIndex(client, schema, documents * 4 ** grown);
    full = await timed(shape());
  }
  return full;
}

afterAll(async () => {
  await client?.end();
  cluster?.stop();
});

/** Milliseconds a search takes, and the SQLSTATE it ends with (null: it completed). */
async function timed(args: unknown[], timeout?: string): Promise<{ ms: number; code: string | null }> {
  await client.query(`SET search_path = ${schema}, public`);
  if (timeout) await client.query(`SET statement_timeout = '${timeout}'`);
  const started = performance.now();
  let code: string | null = null;
  try {
    await client.query(searchSql(named), named ? [schema, ...args] : args);
  } catch (error) {
    code = (error as { code?: string }).code ?? 'none';
  }
  const ms = performance.now() - started;
  await client.query('RESET statement_timeout');
  return { ms, code };
}

const { common, survey } = syntheticWords;

/** Searches whose time goes to one stage each. */
const shapes: Record<string, () => unknown[]> = {
  // Every document scored 65,536 times (a clause may be scored repeatedly); sorted by citations,
  // so MaxScore prunes nothing.
  scoring: () => {
    const args = searchArguments([[common]], { sort: 1 });
    args[4] = new Array(65_536).fill(0);
    args[5] = new Array(65_536).fill(1.5);
    return args;
  },
  // A phrase of 32,768 words: every document's positions are decoded for each of them.
  'phrase matching': () =>
    searchArguments([Array.from({ length: 32_768 }, (_, at) => (at % 2 === 0 ? common : survey))]),
};

describe('alexandria_inverted_search under statement_timeout', () => {
  for (const [stage, shape] of Object.entries(shapes)) {
    it(`ends a search long in ${stage} with 57014 soon after 100 ms`, async () => {
      const full = await longEnough(shape);
      expect(full.code).toBeNull();
      // Long enough that stopping at the end of the search would be told from stopping at 100 ms.
      expect(full.ms).toBeGreaterThan(1000);
      const cancelled = await timed(shape(), '100ms');
      expect(cancelled.code).toBe('57014');
      expect(cancelled.ms).toBeLessThan(full.ms / 2);
      process.stderr.write(
        `alexandria_inverted_search, ${stage}: ${full.ms.toFixed(0)} ms to completion, ${cancelled.ms.toFixed(0)} ms to 57014 under a 100 ms statement_timeout\n`,
      );
    });
  }
});
