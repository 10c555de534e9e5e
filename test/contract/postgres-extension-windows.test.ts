import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { buildExtensionIndex, syntheticRecord } from '../helpers/pg-extension-index.js';
import { needsPostgresExtension } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { search } from './postgres-scifact-parity.js';

/**
 * The extension without a ceiling (decision 0067): posting lists decoded and scored a window of
 * documents at a time (alexandria.search_window_docs), the backend's metadata cache bounded by
 * alexandria.cache_bytes, and tombstones compacted by optimize().
 */
const records = 4000;
const schemas: string[] = [];
let schema: string;
let commonId: string;
let client: pg.Client;
/** Word ids by word, most frequent first. */
let words: Array<{ id: string; word: string; records: number }>;

beforeAll(async () => {
  if (await needsPostgresExtension()) return;
  schema = uniqueSchema('paper_windows');
  schemas.push(schema);
  ({ commonId } = await buildExtensionIndex(testPostgresUrl, schema, records));
  client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  words = (
    await client.query<{ id: string; word: string; records: number }>(
      `SELECT id::text, word, records FROM ${schema}.paper_words ORDER BY records DESC, id`,
    )
  ).rows;
}, 120_000);

afterAll(async () => {
  await client?.end();
  for (const name of schemas) await dropSchema(name);
});

interface RawSearch {
  clauses: string[][];
  required: number[];
  candidates: number[];
  scored: number[];
  kind?: number;
  startYear?: number | null;
  sort?: number;
  limit?: number;
  offset?: number;
}

/** alexandria_inverted_search called as the adapter calls it; rows as text (exact scores). */
async function rawSearch(on: pg.Client, inSchema: string, q: RawSearch) {
  const found = await on.query<{ doc: string | null; score: string | null; total: string }>(
    `SELECT doc::text, score::text, total::text FROM alexandria_inverted_search($1::regnamespace, $2::int8[], $3::int4[],
       $4::int4[], $5::int4[], $6::int4[], $7::float8[], $8::float8[], $9::float8, $10::int4, $11::bool, $12::int4,
       $13::int4, $14::int4, $15::int4, $16::int4)`,
    [
      inSchema,
      q.clauses.flat(),
      q.clauses.map((clause) => clause.length),
      q.required,
      q.candidates,
      q.scored,
      q.scored.map((_, at) => 0.5 + at * 0.37),
      [10, 5, 1],
      23.5,
      q.kind ?? -1,
      false,
      q.startYear ?? null,
      null,
      q.sort ?? 0,
      q.limit ?? 10,
      q.offset ?? 0,
    ],
  );
  return found.rows;
}

describe.skipIf(await needsPostgresExtension())('alexandria_pg without a ceiling', () => {
  it('scores a word in every record the same whatever the window, across its sealed blocks and tail', async () => {
    const common = [commonId];
    const second = words[1]?.id as string;
    const third = words[2]?.id as string;
    const rare = words.at(-1)?.id as string;
    // The common word's list spans many sealed blocks and a tail: windows cut through all of them.
    const blocks = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${schema}.paper_postings WHERE word = $1`,
      [commonId],
    );
    expect(blocks.rows[0]?.n).toBeGreaterThan(5);
    const queries: RawSearch[] = [
      { clauses: [common], required: [0], candidates: [], scored: [0] },
      { clauses: [common], required: [0], candidates: [], scored: [0], limit: 50, offset: 30 },
      { clauses: [common, [second]], required: [0, 1], candidates: [], scored: [0, 1] },
      { clauses: [[commonId, second], [third]], required: [], candidates: [0, 1], scored: [0, 1, 1] },
      { clauses: [common, [rare]], required: [], candidates: [0, 1], scored: [0, 1], sort: 1, limit: 25 },
      { clauses: [common, [third]], required: [0], candidates: [], scored: [0, 1], sort: 2, startYear: 2000 },
      { clauses: [common], required: [0], candidates: [], scored: [0], kind: 1, limit: 100 },
      { clauses: [common], required: [0], candidates: [], scored: [0], limit: 0 },
    ];
    await client.query('SET alexandria.search_window_docs = 1073741824');
    const whole = [];
    for (const query of queries) whole.push(await rawSearch(client, schema, query));
    // Not empty pages: the comparison below could tell a difference.
    expect(Number(whole[0]?.[0]?.total)).toBe(records);
    expect(whole[0]).toHaveLength(10);
    expect(Number(whole[3]?.[0]?.total)).toBeGreaterThan(0);
    for (const window of [1, 7, 61, 1000, 1024, 3001]) {
      await client.query(`SET alexandria.search_window_docs = ${window}`);
      for (const [at, query] of queries.entries())
        expect(await rawSearch(client, schema, query), `window ${window}, query ${at}`).toEqual(whole[at]);
    }
    await client.query('RESET alexandria.search_window_docs');
  });

  it('reports the memory of its last search, less in smaller windows', async () => {
    const added = async (window: number) => {
      await client.query(`SET alexandria.search_window_docs = ${window}`);
      await rawSearch(client, schema, { clauses: [[commonId]], required: [0], candidates: [], scored: [0] });
      const used = (
        await client.query<{ base: string; peak: string }>(
          'SELECT search_base_bytes::text AS base, search_peak_bytes::text AS peak FROM alexandria_memory($1::regnamespace)',
          [schema],
        )
      ).rows[0];
      expect(Number(used?.peak)).toBeGreaterThan(Number(used?.base));
      return Number(used?.peak) - Number(used?.base);
    };
    const [small, whole] = [await added(256), await added(1 << 30)];
    // 4,000 postings in one window against 256 at a time: the window's arrays are what grows.
    expect(small).toBeLessThan(whole);
    expect(whole).toBeLessThan(4 << 20);
    await expect(client.query('SELECT * FROM alexandria_memory(NULL)')).rejects.toThrow(/null/);
    await client.query('RESET alexandria.search_window_docs');
  });

  it('keeps its metadata cache within alexandria.cache_bytes, with the same pages', async () => {
    const sorted: RawSearch = {
      clauses: [[commonId]],
      required: [0],
      candidates: [],
      scored: [0],
      sort: 1,
      limit: 40,
    };
    const cache = async () =>
      (
        await client.query<{ entries: string; bytes: string }>(
          'SELECT cache_entries::text AS entries, cache_bytes::text AS bytes FROM alexandria_memory($1::regnamespace)',
          [schema],
        )
      ).rows[0];
    await client.query('SET alexandria.cache_bytes = 0');
    const uncached = await rawSearch(client, schema, sorted);
    expect(Number((await cache())?.entries)).toBe(0);
    // Room for 2 of the index's 4 metadata rows (documents 1–4,000).
    await client.query(`SET alexandria.cache_bytes = '100kB'`);
    for (let pass = 0; pass < 3; pass += 1) {
      expect(await rawSearch(client, schema, sorted)).toEqual(uncached);
      const held = await cache();
      expect(Number(held?.entries)).toBe(2);
      expect(Number(held?.bytes)).toBeLessThanOrEqual(100 * 1024);
    }
    await client.query('RESET alexandria.cache_bytes');
    expect(await rawSearch(client, schema, sorted)).toEqual(uncached);
    expect(Number((await cache())?.entries)).toBe(4);
    // Lowered again: the next search drops rows down to the bound before it reads.
    await client.query(`SET alexandria.cache_bytes = '100kB'`);
    expect(await rawSearch(client, schema, sorted)).toEqual(uncached);
    expect(Number((await cache())?.entries)).toBe(2);
    await client.query('RESET alexandria.cache_bytes');
  });

  it('compacts the tombstones of replaced records: smaller, and searched as a fresh index of the survivors', async () => {
    const fresh = uniqueSchema('paper_windows');
    schemas.push(fresh);
    const compacted = uniqueSchema('paper_windows');
    schemas.push(compacted);
    await buildExtensionIndex(testPostgresUrl, compacted, records);
    // New text for 1,800 records, twice for 300 of them: 2,100 tombstones.
    const index = await createPostgresPaperIndex(testPostgresUrl, { schema: compacted, maxConnections: 2 });
    // A longer abstract replaces the stored one (an upsert merges with the stored version).
    const rewrite = (serial: number, words: string) => ({
      ...syntheticRecord(serial),
      abstract: `${syntheticRecord(serial).abstract} Revised: ${words} in sediment ${serial % 3 === 0 ? 'glacier' : 'ocean'} cores, measured once more.`,
    });
    const replaced = Array.from({ length: 1800 }, (_, at) => rewrite(at * 2 + 1, 'coral'));
    await index.upsert(replaced);
    const again = Array.from({ length: 300 }, (_, at) =>
      rewrite(at * 6 + 1, 'protein folding and coral bleaching'),
    );
    await index.upsert(again);
    // The records as stored (an upsert merges with the stored version), for the fresh index.
    const survivors = (await index.recordsWithoutVectors('none', 0, 2 * records)).map((entry) => entry.paper);
    expect(survivors).toHaveLength(records);
    const other = await createPostgresPaperIndex(testPostgresUrl, { schema: fresh, maxConnections: 2 });
    for (let start = 0; start < survivors.length; start += 500)
      await other.upsert(survivors.slice(start, start + 500));

    const stored = async (name: string) =>
      Number(
        (
          await client.query<{ bytes: string }>(
            `SELECT (SELECT coalesce(sum(octet_length(docs) + octet_length(positions)), 0) FROM ${name}.paper_postings)
                  + (SELECT coalesce(sum(octet_length(tail_docs) + coalesce(octet_length(tail_positions), 0)), 0)
                     FROM ${name}.paper_words) AS bytes`,
          )
        ).rows[0]?.bytes,
      );
    const relations = async (name: string) => {
      // VACUUM FULL: the relations' files at their live rows' size, comparable before and after.
      await client.query(`VACUUM FULL ${name}.paper_postings, ${name}.paper_words`);
      const found = await client.query<{ bytes: string }>(
        `SELECT (pg_total_relation_size('${name}.paper_postings') + pg_total_relation_size('${name}.paper_words'))::text AS bytes`,
      );
      return Number(found.rows[0]?.bytes);
    };
    const queries = [
      { ...search, should: [{ kind: 'term' as const, text: 'common' }], limit: 100 },
      { ...search, must: [{ kind: 'term' as const, text: 'coral' }], limit: 100, offset: 50 },
      { ...search, should: [{ kind: 'phrase' as const, text: 'common ocean' }], limit: 100 },
      {
        ...search,
        should: [{ kind: 'term' as const, text: 'glacier' }],
        sort: 'cited_by_count' as const,
        limit: 100,
      },
    ];
    const pages = async (on: typeof index) => {
      const out = [];
      for (const query of queries) {
        const page = await on.search(query);
        out.push({ total: page.total, hits: page.papers.map((paper, at) => [paper.doi, page.scores[at]]) });
      }
      return out;
    };
    const before = {
      stored: await stored(compacted),
      relations: await relations(compacted),
      pages: await pages(index),
    };
    expect(before.pages).toEqual(await pages(other));
    await index.optimize();
    const after = {
      stored: await stored(compacted),
      relations: await relations(compacted),
      pages: await pages(index),
    };
    expect(after.pages).toEqual(before.pages);
    expect(after.pages[0]?.total).toBeGreaterThan(3000);
    // 2,100 of 6,100 documents were tombstones: their postings are gone.
    expect(after.stored).toBeLessThan(before.stored * 0.8);
    expect(after.relations).toBeLessThan(before.relations);
    expect(after.stored).toBeLessThanOrEqual((await stored(fresh)) * 1.01);
    // Nothing left to remove, and every word's postings are its document count.
    const compactedAgain = await client.query<{ removed: string; kept: string }>(
      `SELECT postings_removed::text AS removed, postings_kept::text AS kept
       FROM alexandria_compact($1::regnamespace, 0, 9223372036854775807)`,
      [compacted],
    );
    const counted = await client.query<{ n: string }>(
      `SELECT sum(records)::text AS n FROM ${compacted}.paper_words`,
    );
    expect(compactedAgain.rows[0]?.removed).toBe('0');
    expect(compactedAgain.rows[0]?.kept).toBe(counted.rows[0]?.n);
    await index.close();
    await other.close();
  }, 180_000);
});
