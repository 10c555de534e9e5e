import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type PrivateCluster, startPrivateCluster } from '../helpers/pg-cluster.js';
import {
  searchArguments,
  searchSql,
  syntheticWords,
  writeSyntheticIndex,
} from '../helpers/pg-extension-synthetic.js';

/**
 * Regression tests of alexandria_pg 1.3 (decision 0039), one per defect of 1.2, on a PostgreSQL
 * cluster of the test's own (1.2 lost its backend on the first one). The indexes are written
 * straight into tables (pg-extension-synthetic.ts), so the file runs against any version.
 */
const INT_MAX = 2 ** 31 - 1;
const documents = 2500;
let cluster: PrivateCluster;
let client: pg.Client;

async function connect(url: string): Promise<pg.Client> {
  const connection = new pg.Client({ connectionString: url });
  connection.on('error', () => undefined);
  await connection.connect();
  return connection;
}

/** The SQLSTATE a query fails with (null when it succeeds). */
async function failure(connection: pg.Client, sql: string, params: unknown[]): Promise<string | null> {
  try {
    await connection.query(sql, params);
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? `no SQLSTATE: ${(error as Error).message}`;
  }
}

/** The SQLSTATEs of a search of `schema` in both forms: given the schema (1.3), and through the search_path. */
async function bothForms(schema: string, args: unknown[]): Promise<[string | null, string | null]> {
  const named = await failure(client, searchSql(true), [schema, ...args]);
  await client.query(`SET search_path = ${schema}`);
  const found = await failure(client, searchSql(false), args);
  await client.query('RESET search_path');
  return [named, found];
}

beforeAll(async () => {
  cluster = await startPrivateCluster();
  const admin = await connect(cluster.url);
  await admin.query('CREATE EXTENSION alexandria_pg');
  await writeSyntheticIndex(admin, 'index_a', documents);
  await writeSyntheticIndex(admin, 'index_b', 50);
  await admin.end();
});

afterAll(() => cluster?.stop());

// A session per test: a test that loses its backend (as on 1.2) does not take the next ones with it.
beforeEach(async () => {
  client = await connect(cluster.url);
});

afterEach(async () => {
  await client.end().catch(() => undefined);
});

const common = [[syntheticWords.common]];

describe('alexandria_pg: arguments', () => {
  it('refuses a clause of length -1 with no words (1.2 lost the backend) and keeps the session', async () => {
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const crash = searchArguments([]);
    crash[1] = [-1];
    crash[3] = [0];
    crash[4] = [0];
    crash[5] = [1e-6];
    await client.query('SET search_path = index_a');
    expect(await failure(client, searchSql(false), crash)).toBe('22023');
    expect(await failure(client, searchSql(true), ['index_a', ...crash])).toBe('22023');
    for (const lengths of [[0], [-2147483648], [2, -1]]) {
      const args = searchArguments([[syntheticWords.common]]);
      args[1] = lengths;
      expect(await failure(client, searchSql(true), ['index_a', ...args]), JSON.stringify(lengths)).toBe(
        '22023',
      );
    }
    expect((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid).toBe(pid);
  });

  it('pages with a limit and an offset near INT_MAX without overflow', async () => {
    const all = await client.query(searchSql(true), [
      'index_a',
      ...searchArguments(common, { limit: INT_MAX }),
    ]);
    expect(all.rows).toHaveLength(documents);
    expect(new Set(all.rows.map((row) => row.doc)).size).toBe(documents);
    const past = await client.query(searchSql(true), [
      'index_a',
      ...searchArguments(common, { limit: INT_MAX, offset: INT_MAX }),
    ]);
    expect(past.rows).toEqual([{ doc: null, score: null, total: String(documents) }]);
    const last = await client.query(searchSql(true), [
      'index_a',
      ...searchArguments(common, { limit: INT_MAX, offset: documents - 1, sort: 1 }),
    ]);
    expect(last.rows).toHaveLength(1);
  });

  it('refuses negative pages, unknown sorts and kinds, NULL elements and non-finite numbers', async () => {
    const cases: Array<[number, unknown, string]> = [
      [13, -1, '22023'], // limit
      [14, -5, '22023'], // offset
      [12, 3, '22023'], // sort
      [8, 7, '22023'], // kind
      [0, [syntheticWords.common, null], '22004'], // a word that is NULL
      [6, [3, Number.NaN, 1], '22023'], // a field weight
      [5, [Number.POSITIVE_INFINITY], '22023'], // an IDF
      [7, Number.NaN, '22023'], // avgdl
      [2, [5], '22023'], // a required clause out of range
      [6, [1, 1], '22023'], // two field weights
      [0, [[1], [2]], '2202E'], // two dimensions
    ];
    for (const [at, value, code] of cases) {
      const args = searchArguments(common);
      args[at] = value;
      expect(
        await failure(client, searchSql(true), ['index_a', ...args]),
        `argument ${at + 2} = ${value}`,
      ).toBe(code);
    }
  });

  it('scores each row with its own phrases when alexandria_bm25 is given them per row', async () => {
    const scores = await client.query<{ score: number }>(
      `SELECT alexandria_bm25(v, p, ARRAY[1.0]::float8[], ARRAY[0, 0.5, 1, 3]::float8[], 10, 10::float8) AS score
       FROM (VALUES ('alpha:1A'::tsvector, ARRAY['alpha']), ('beta:1A'::tsvector, ARRAY['beta'])) AS t (v, p)`,
    );
    expect(scores.rows.map((row) => row.score > 0)).toEqual([true, true]);
  });

  it('refuses byte strings that do not decode', async () => {
    expect(
      await failure(client, 'SELECT alexandria_slices($1::bytea, $2::int4[])', [Buffer.from([1, 2]), [1]]),
    ).toBe('22023');
    expect(
      await failure(client, 'SELECT alexandria_slices($1::bytea, $2::int4[])', [
        Buffer.from([1, 2]),
        [-2, 2],
      ]),
    ).toBe('22023');
    const head = Buffer.from([0x05, 0x40, 0x80]); // a varint cut short
    expect(
      await failure(client, 'SELECT alexandria_docs_append($1::bytea, $2::bytea)', [
        head,
        Buffer.from([0x09, 0x40]),
      ]),
    ).toBe('22023');
    const joined = await client.query('SELECT alexandria_docs_append($1::bytea, $2::bytea) AS docs', [
      Buffer.from([0x05, 0x40]),
      Buffer.from([0x09, 0x40]),
    ]);
    expect([...joined.rows[0].docs]).toEqual([0x05, 0x40, 0x04, 0x40]);
  });
});

describe('alexandria_pg: stored postings', () => {
  /** A copy of index_a with one more sealed block of `common`, placed last among the sealed ones. */
  async function withBlock(schema: string, docs: number[], positions: number[]): Promise<void> {
    await writeSyntheticIndex(client, schema, documents);
    await client.query(`INSERT INTO ${schema}.paper_postings VALUES ($1, 1000000, $2, $3)`, [
      syntheticWords.common,
      Buffer.from(docs),
      Buffer.from(positions),
    ]);
  }

  it('refuses documents out of order, cut short or too large, as damaged data', async () => {
    // Documents 5 and 6 after blocks that reach far higher: 1.2 read metadata blocks out of bounds.
    await withBlock('out_of_order', [0x05, 0x48, 0x01, 0x48], [1, 4, 1, 4]);
    await withBlock('cut_short', [0x05, 0x48, 0x80], [1, 4]);
    await withBlock('too_large', [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x48], [1, 4]);
    await withBlock('positions_missing', [0x85, 0x40, 0x48], [1]);
    for (const schema of ['out_of_order', 'cut_short', 'too_large']) {
      expect(await failure(client, searchSql(true), [schema, ...searchArguments(common)]), schema).toBe(
        'XX001',
      );
    }
    const phrase = searchArguments([[syntheticWords.common, syntheticWords.survey]]);
    expect(await failure(client, searchSql(true), ['positions_missing', ...phrase])).toBe('XX001');
  });

  it('refuses tables whose columns have other types, and relations that are not tables', async () => {
    await client.query(`CREATE SCHEMA mistyped;
      CREATE TABLE mistyped.paper_words (word text, id bigint, tail_docs int8, tail_positions int8);
      CREATE TABLE mistyped.paper_postings (word bigint, seq bigint, docs int8, positions int8);
      CREATE TABLE mistyped.paper_docs (block int4, core bytea, keys bytea);
      CREATE TABLE mistyped.paper_index_stats (data_version bigint);
      INSERT INTO mistyped.paper_postings VALUES (1, 1, 42, 42);
      CREATE SCHEMA viewed;
      CREATE TABLE viewed.paper_words (LIKE index_a.paper_words);
      CREATE TABLE viewed.paper_docs (LIKE index_a.paper_docs);
      CREATE TABLE viewed.paper_index_stats (LIKE index_a.paper_index_stats);
      CREATE VIEW viewed.paper_postings AS SELECT * FROM index_a.paper_postings`);
    expect(await bothForms('mistyped', searchArguments(common))).toEqual(['42804', '42804']);
    expect(await bothForms('viewed', searchArguments(common))).toEqual(['42809', '42809']);
    expect(await failure(client, searchSql(true), ['99999', ...searchArguments(common)])).toBe('3F000');
  });
});

describe('alexandria_pg: names and privileges', () => {
  it("reads the schema it is given, whatever the caller's search_path", async () => {
    await client.query('SET search_path = index_b, index_a, public');
    const found = await client.query(searchSql(true), ['index_a', ...searchArguments(common)]);
    expect(found.rows[0]?.total).toBe(String(documents));
    // The form of 1.2 follows the search_path, but never into a temporary schema.
    expect((await client.query(searchSql(false), searchArguments(common))).rows[0]?.total).toBe('50');
    await client.query('CREATE TEMP TABLE paper_index_stats (data_version bigint)');
    await client.query('SET search_path = index_a, public');
    expect(await failure(client, searchSql(false), searchArguments(common))).toBe('3F000');
  });

  it('lets only roles granted EXECUTE call the functions: others get a permission error', async () => {
    await client.query(`CREATE ROLE reader LOGIN;
      GRANT USAGE ON SCHEMA index_a TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA index_a TO reader`);
    const reader = await connect(cluster.urlOf('postgres', 'reader'));
    try {
      const args = ['index_a', ...searchArguments(common)];
      expect(await failure(reader, searchSql(true), args)).toBe('42501');
      expect(
        await failure(reader, 'SELECT alexandria_slices($1::bytea, $2::int4[])', [Buffer.from([1]), [1]]),
      ).toBe('42501');
      expect(
        await failure(
          reader,
          "SELECT alexandria_bm25('a:1'::tsvector, '{a}', '{1}'::float8[], '{0,0,0,1}'::float8[], 1, 1::float8)",
          [],
        ),
      ).toBe('42501');
      await client.query(`GRANT EXECUTE ON FUNCTION alexandria_inverted_search(regnamespace, int8[], int4[], int4[],
        int4[], int4[], float8[], float8[], float8, int4, bool, int4, int4, int4, int4, int4) TO reader`);
      expect((await reader.query(searchSql(true), args)).rows[0]?.total).toBe(String(documents));
    } finally {
      await reader.end();
    }
  });
});
