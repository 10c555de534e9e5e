import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateCluster, startPrivateCluster } from '../helpers/pg-cluster.js';
import { hostileBytes, pick, type Random, seededRandom } from '../helpers/pg-extension-fuzz.js';
import { type FuzzTarget, fuzzCalls } from '../helpers/pg-extension-fuzz-calls.js';
import { buildExtensionIndex } from '../helpers/pg-extension-index.js';

/**
 * Fuzz test of the alexandria_pg extension (decision 0039): every SQL function of the installed
 * extension is called with random and hostile arguments, on a well-formed index and on one whose
 * stored byte strings are damaged again before every batch, and the server must never lose a
 * backend: every call ends with rows or a clean ERROR. It runs on a PostgreSQL cluster of its own
 * (a crashed backend makes the postmaster restart every session of its cluster).
 *
 * ALEXANDRIA_FUZZ_CALLS sets the number of calls (default 2,000, ~10 s; e.g. 200000 for a long
 * run); ALEXANDRIA_FUZZ_SEED replays a run (the seed is printed).
 */
const calls = Number(process.env.ALEXANDRIA_FUZZ_CALLS ?? 2000);
const seed = Number(process.env.ALEXANDRIA_FUZZ_SEED ?? Date.now() % 2 ** 31);
const batchSize = 100;

/** SQLSTATEs of a clean refusal: bad arguments, damaged stored data, missing relations or schemas. */
const cleanErrors = new Set([
  '22023', // invalid_parameter_value
  '22004', // null_value_not_allowed
  '22003', // numeric_value_out_of_range (also casts of the parameters)
  '2202E', // array_subscript_error
  '22P02', // invalid_text_representation (a parameter's cast)
  '22000', // data_exception
  'XX001', // data_corrupted: a stored posting list or metadata row that does not decode
  '42P01', // undefined_table: a schema without the index's tables
  '42804', // datatype_mismatch: the index's tables with other column types
  '42703', // undefined_column: the index's tables without a column a function reads (compaction)
  '3F000', // invalid_schema_name
  '54000', // program_limit_exceeded
]);

let cluster: PrivateCluster;
let target: FuzzTarget;
let damage: (random: Random) => Promise<void>;

beforeAll(async () => {
  cluster = await startPrivateCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query('CREATE EXTENSION alexandria_pg SCHEMA public');
    const { wordIds } = await buildExtensionIndex(cluster.url, 'fuzz_valid', 600);
    // A copy without constraints, damaged anew before every batch; a schema with no tables; and one
    // whose tables have the right names and the wrong column types.
    await admin.query(`CREATE SCHEMA fuzz_damaged; CREATE SCHEMA fuzz_empty; CREATE SCHEMA fuzz_mistyped;
      CREATE TABLE fuzz_mistyped.paper_words (word text, id int4, records int4, tail_docs text, tail_positions int8);
      CREATE TABLE fuzz_mistyped.paper_postings (word int4, seq int8, docs text, positions int8);
      CREATE TABLE fuzz_mistyped.paper_docs (block int8, core int8, keys text);
      CREATE TABLE fuzz_mistyped.paper_index_stats (data_version text);
      INSERT INTO fuzz_mistyped.paper_words SELECT word, id, records, 'x', 7 FROM fuzz_valid.paper_words;
      INSERT INTO fuzz_mistyped.paper_postings SELECT word, seq, 'x', 7 FROM fuzz_valid.paper_postings;
      INSERT INTO fuzz_mistyped.paper_docs SELECT block, 7, 'x' FROM fuzz_valid.paper_docs;
      INSERT INTO fuzz_mistyped.paper_index_stats VALUES ('1')`);
    for (const table of ['paper_words', 'paper_postings', 'paper_docs', 'paper_index_stats'])
      await admin.query(`CREATE TABLE fuzz_damaged.${table} AS TABLE fuzz_valid.${table}`);
    const postings = await admin.query<{ word: string; seq: string; docs: Buffer; positions: Buffer }>(
      'SELECT word, seq, docs, positions FROM fuzz_valid.paper_postings',
    );
    const tails = await admin.query<{ id: string; tail_docs: Buffer | null; tail_positions: Buffer | null }>(
      'SELECT id, tail_docs, tail_positions FROM fuzz_valid.paper_words',
    );
    const docs = await admin.query<{ block: number; core: Buffer; keys: Buffer }>(
      'SELECT block, core, keys FROM fuzz_valid.paper_docs',
    );
    target = {
      extensionSchema: 'public',
      indexSchemas: ['fuzz_valid', 'fuzz_damaged', 'fuzz_empty', 'fuzz_mistyped'],
      wordIds,
    };
    damage = async (random) => {
      const maybe = (bytes: Buffer | null) =>
        random() < 0.3 ? (random() < 0.1 ? null : hostileBytes(random, bytes ?? undefined)) : bytes;
      const client = new pg.Client({ connectionString: cluster.url });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(
          'TRUNCATE fuzz_damaged.paper_postings, fuzz_damaged.paper_words, fuzz_damaged.paper_docs',
        );
        await client.query(
          'INSERT INTO fuzz_damaged.paper_postings SELECT * FROM unnest($1::int8[], $2::int8[], $3::bytea[], $4::bytea[])',
          [
            postings.rows.map((row) => row.word),
            postings.rows.map((row) => row.seq),
            postings.rows.map((row) => maybe(row.docs)),
            postings.rows.map((row) => maybe(row.positions)),
          ],
        );
        await client.query(
          `INSERT INTO fuzz_damaged.paper_words (word, id, records, tail_docs, tail_positions)
           SELECT 'w' || id, id, 1, d, p FROM unnest($1::int8[], $2::bytea[], $3::bytea[]) AS t(id, d, p)`,
          [
            tails.rows.map((row) => row.id),
            tails.rows.map((row) => maybe(row.tail_docs)),
            tails.rows.map((row) => maybe(row.tail_positions)),
          ],
        );
        const blocks = docs.rows.map((row) =>
          random() < 0.1 ? pick(random, [-1, 2 ** 31 - 1, row.block + 1]) : row.block,
        );
        await client.query(
          'INSERT INTO fuzz_damaged.paper_docs SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])',
          [blocks, docs.rows.map((row) => maybe(row.core)), docs.rows.map((row) => maybe(row.keys))],
        );
        // A new data version: a backend's cached metadata rows are read again.
        await client.query('UPDATE fuzz_damaged.paper_index_stats SET data_version = data_version + 1');
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    };
  } finally {
    await admin.end();
  }
});

afterAll(() => cluster?.stop());

describe('alexandria_pg under random and hostile calls', () => {
  it(
    `never loses a backend in ${calls} calls (seed ${seed})`,
    async () => {
      const random = seededRandom(seed);
      const connect = async () => {
        const client = new pg.Client({ connectionString: cluster.url });
        client.on('error', () => undefined);
        await client.connect();
        await client.query("SET statement_timeout = '20s'");
        return client;
      };
      const watcher = await connect();
      const started = (await watcher.query('SELECT pg_postmaster_start_time()::text AS at')).rows[0].at;
      const functions = await watcher.query<{ signature: string }>(
        `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS signature
       FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
       WHERE d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
         AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'alexandria_pg') ORDER BY 1`,
      );
      const signatures = functions.rows.map((row) => row.signature);
      expect(
        signatures.filter((signature) => !fuzzCalls[signature]),
        'functions without a fuzz generator',
      ).toEqual([]);
      const tally = new Map(signatures.map((signature) => [signature, { calls: 0, rows: 0, errors: 0 }]));
      const codes = new Map<string, number>();
      const lost: string[] = [];
      const broken: string[] = [];
      let client = await connect();
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      let searchPath = '';
      for (let done = 0; done < calls && lost.length < 3; ) {
        await damage(random);
        // Windows and cache bounds of every size (decision 0067): the same refusals, never a crash.
        await client.query(`SET alexandria.search_window_docs = ${pick(random, [1, 2, 61, 1024, 262144])}`);
        await client.query(`SET alexandria.cache_bytes = ${pick(random, [0, 70000, 100000, 67108864])}`);
        for (let at = 0; at < batchSize && done < calls; at += 1, done += 1) {
          const signature = pick(random, signatures);
          const call = (fuzzCalls[signature] as NonNullable<(typeof fuzzCalls)[string]>)(random, target);
          const counts = tally.get(signature) as { calls: number; rows: number; errors: number };
          counts.calls += 1;
          try {
            if (call.searchPath && call.searchPath !== searchPath) {
              await client.query(`SET search_path = ${call.searchPath}`);
              searchPath = call.searchPath;
            }
            const result = await client.query(call.sql, call.params);
            counts.rows += 1;
            if (call.wellFormed && signature.startsWith('alexandria_inverted_search')) {
              const violation = pageViolation(
                result.rows,
                call.params.at(-2) as number,
                call.params.at(-1) as number,
              );
              if (violation) broken.push(`${violation}: ${call.sql} ${JSON.stringify(call.params)}`);
            }
          } catch (error) {
            const code = (error as { code?: string }).code;
            if (code && cleanErrors.has(code)) {
              counts.errors += 1;
              codes.set(code, (codes.get(code) ?? 0) + 1);
              continue;
            }
            if (code && !/^57P0[123]$/.test(code)) {
              // An error, but not one the extension raises on purpose (e.g. XX000 from elog).
              codes.set(code, (codes.get(code) ?? 0) + 1);
              broken.push(
                `${code} ${(error as Error).message}: ${call.sql} ${JSON.stringify(call.params).slice(0, 400)}`,
              );
              continue;
            }
            lost.push(
              `${(error as Error).message}: ${call.sql} ${JSON.stringify(call.params).slice(0, 400)}`,
            );
            await waitForServer(cluster.url);
            client = await connect();
            searchPath = '';
          }
        }
        // The same backend, and the same postmaster that has not reinitialised its sessions.
        if (lost.length === 0) {
          expect((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid).toBe(pid);
          expect((await watcher.query('SELECT pg_postmaster_start_time()::text AS at')).rows[0].at).toBe(
            started,
          );
        }
      }
      await client.end().catch(() => undefined);
      await watcher.end().catch(() => undefined);
      const crashes = cluster.log().match(/terminated by signal \d+/g) ?? [];
      const summary = { seed, calls, tally: Object.fromEntries(tally), codes: Object.fromEntries(codes) };
      process.stderr.write(`alexandria_pg fuzz: ${JSON.stringify(summary)}\n`);
      expect(lost, `calls that lost their backend (seed ${seed})`).toEqual([]);
      expect(crashes, 'backends the server log reports as crashed').toEqual([]);
      expect(
        broken.slice(0, 5),
        'calls that failed without a clean error, or broke the page contract',
      ).toEqual([]);
      for (const [signature, counts] of tally) {
        // Each function was reached, and both answered and refused: the calls go past the first check.
        expect(counts.calls, signature).toBeGreaterThan(calls / signatures.length / 3);
        expect(counts.rows, signature).toBeGreaterThan(0);
        expect(counts.errors, signature).toBeGreaterThan(0);
      }
      // A long run (ALEXANDRIA_FUZZ_CALLS) gets time in proportion: ~1–3 ms a call on 2 cores.
    },
    Math.max(60_000, calls * 10),
  );
});

/** What a well-formed search's rows must be: at most `limit` documents, distinct, with one total. */
function pageViolation(
  rows: Array<{ doc: string | null; total: string }>,
  limit: number,
  offset: number,
): string | null {
  if (rows.length === 0) return 'no row';
  const docs = rows.map((row) => row.doc).filter((doc) => doc !== null);
  if (docs.length > Math.max(limit, 0)) return `${docs.length} documents for a limit of ${limit}`;
  if (new Set(docs).size !== docs.length) return 'a document twice';
  if (new Set(rows.map((row) => row.total)).size !== 1) return 'several totals';
  if (docs.length > 0 && Number(rows[0]?.total) < offset + docs.length) return 'a total below the page';
  return null;
}

async function waitForServer(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the server did not come back');
}
