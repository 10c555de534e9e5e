import pg from 'pg';
import { bm25Idf } from '../../src/adapters/paper-index/index-fields.js';
import { commonestWords } from './pg-statement-timeout.js';

/**
 * What a search of the index's most common word costs the PostgreSQL backend in memory (issue 38,
 * decision 0067; goal: no allocation over 64 MB at 10M records). `alexandria_memory` reports what
 * the backend's last search held when it began and the most it held during it: its own memory
 * contexts (windows, rows read, the page's heap), the part of the kept scratch buffer a window
 * uses, and the metadata cache, sampled at the end of every window, where the window's arrays are
 * largest. Their difference bounds any one allocation the search made. Times: the median of 5 runs. Measured on one
 * connection, warm (the metadata cache filled by a first run, its size reported apart), for
 * relevance (MaxScore prunes) and by citations (every match scored), at the default window and
 * with windows of 16,384 documents, and with the whole list in one window (what alexandria_pg ≤ 1.3 did).
 */
export interface SearchMemoryRow {
  sort: 'relevance' | 'citations';
  window: 'default' | '16384' | 'whole list';
  /** Bytes the search added at its peak. */
  addedBytes: number;
  ms: number;
}

export interface SearchMemoryFigures {
  word: string;
  records: number;
  /** The metadata cache's bytes after the searches (bounded by alexandria.cache_bytes). */
  cacheBytes: number;
  rows: SearchMemoryRow[];
}

const search = `SELECT count(*) FROM alexandria_inverted_search($1::regnamespace, $2::int8[], $3::int4[],
  $4::int4[], $5::int4[], $6::int4[], $7::float8[], $8::float8[], $9::float8, $10::int4, $11::bool, $12::int4,
  $13::int4, $14::int4, $15::int4, $16::int4)`;

export async function searchMemoryFigures(url: string, schema: string): Promise<SearchMemoryFigures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { records, avgdl, words } = await commonestWords(client, schema, 1);
    const common = words[0];
    if (!common) throw new Error(`${schema} holds no words`);
    const idf = bm25Idf(records, common.records);
    /** One search: its peak memory, and its median time over 5 runs (the machine is shared). */
    const run = async (sort: number) => {
      const times: number[] = [];
      for (let at = 0; at < 5; at += 1) times.push(await once(sort));
      const used = (
        await client.query<{ base: string; peak: string }>(
          'SELECT search_base_bytes AS base, search_peak_bytes AS peak FROM alexandria_memory($1::regnamespace)',
          [schema],
        )
      ).rows[0];
      return { addedBytes: Number(used?.peak) - Number(used?.base), ms: times.sort((a, b) => a - b)[2] ?? 0 };
    };
    const once = async (sort: number) => {
      const started = performance.now();
      await client.query(search, [
        schema,
        [common.id],
        [1],
        [0],
        [],
        [0],
        [idf],
        [1, 1, 1],
        avgdl,
        -1,
        false,
        null,
        null,
        sort,
        10,
        0,
      ]);
      return performance.now() - started;
    };
    const rows: SearchMemoryRow[] = [];
    for (const [window, setting] of [
      ['default', 'DEFAULT'],
      ['16384', '16384'],
      ['whole list', '1073741824'],
    ] as const) {
      await client.query(`SET alexandria.search_window_docs = ${setting}`);
      for (const [sort, code] of [
        ['relevance', 0],
        ['citations', 1],
      ] as const) {
        await run(code);
        rows.push({ sort, window, ...(await run(code)) });
      }
    }
    const cache = (
      await client.query<{ bytes: string }>(
        'SELECT cache_bytes AS bytes FROM alexandria_memory($1::regnamespace)',
        [schema],
      )
    ).rows[0];
    return { word: common.word, records: common.records, cacheBytes: Number(cache?.bytes), rows };
  } finally {
    await client.end();
  }
}
