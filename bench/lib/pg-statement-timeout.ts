import pg from 'pg';
import { bm25Idf } from '../../src/adapters/paper-index/index-fields.js';
import { percentile } from '../../src/platform/percentile.js';

/**
 * How soon a statement_timeout ends a broad search in the alexandria_pg extension (decision 0039;
 * goal: a 100 ms timeout ends it within 200 ms). Calls `alexandria_inverted_search` directly on the
 * bench's index: the most common word alone (relevance, top 10), then a broad search — the `broad`
 * most common words, any of them matching, sorted by citations so that MaxScore prunes nothing —
 * to completion, then `runs` times under `SET statement_timeout = '100ms'`, timing issue → error.
 */
export interface StatementTimeoutFigures {
  /** The index's most common word and its documents. */
  commonWord: string;
  commonRecords: number;
  /** Milliseconds of a top-10 relevance search of the most common word (median of `runs`). */
  commonWordMs: number;
  broadWords: number;
  /** Milliseconds of the broad search to completion (median of 3). */
  broadMs: number;
  /** Milliseconds from issuing the broad search under the timeout to its error (57014), each run. */
  cancelMs: number[];
  /** SQLSTATEs the timed-out runs ended with (all 57014 when the timeout works). */
  codes: string[];
  /**
   * The same under PostgreSQL's own CPU-bound work (a count over generate_series), alternated with
   * the search: what the machine's load adds to any statement's cancel, the extension aside.
   */
  baselineMs: number[];
}

const search = `SELECT doc, score, total FROM alexandria_inverted_search($1::regnamespace, $2::int8[], $3::int4[],
  $4::int4[], $5::int4[], $6::int4[], $7::float8[], $8::float8[], $9::float8, $10::int4, $11::bool, $12::int4,
  $13::int4, $14::int4, $15::int4, $16::int4)`;

/** The index's record count, mean record length and its `limit` commonest words (jit off for the session). */
export async function commonestWords(
  client: pg.Client,
  schema: string,
  limit: number,
): Promise<{ records: number; avgdl: number; words: Array<{ word: string; id: string; records: number }> }> {
  await client.query('SET jit = off');
  const stats = (
    await client.query<{ records: string; tokens: string }>(
      `SELECT records, tokens FROM ${schema}.paper_index_stats`,
    )
  ).rows[0];
  const records = Number(stats?.records ?? 0);
  const avgdl = records > 0 ? Number(stats?.tokens) / records : 1;
  const words = (
    await client.query<{ word: string; id: string; records: number }>(
      `SELECT word, id, records FROM ${schema}.paper_words ORDER BY records DESC LIMIT $1`,
      [limit],
    )
  ).rows;
  return { records, avgdl, words };
}

export async function statementTimeoutFigures(
  url: string,
  schema: string,
  options: { broad?: number; runs?: number } = {},
): Promise<StatementTimeoutFigures> {
  const broad = options.broad ?? 20;
  const runs = options.runs ?? 20;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { records, avgdl, words } = await commonestWords(client, schema, broad);
    const args = (chosen: typeof words, sort: number) => [
      schema,
      chosen.map((word) => word.id),
      chosen.map(() => 1),
      [],
      chosen.map((_, at) => at),
      chosen.map((_, at) => at),
      chosen.map((word) => bm25Idf(records, word.records)),
      [3, 1, 0.5],
      avgdl,
      -1,
      false,
      null,
      null,
      sort,
      10,
      0,
    ];
    const timed = async (values: unknown[]) => {
      const started = performance.now();
      let code = '';
      try {
        await client.query(search, values);
      } catch (error) {
        code = (error as { code?: string }).code ?? 'none';
      }
      return { ms: performance.now() - started, code };
    };
    const median = (samples: number[]) => percentile(samples, 0.5);
    const common = words.slice(0, 1);
    await timed(args(common, 0));
    const commonTimes: number[] = [];
    for (let run = 0; run < runs; run += 1) commonTimes.push((await timed(args(common, 0))).ms);
    const broadTimes: number[] = [];
    for (let run = 0; run < 3; run += 1) broadTimes.push((await timed(args(words, 1))).ms);
    await client.query("SET statement_timeout = '100ms'");
    const cancelled: Array<{ ms: number; code: string }> = [];
    const baseline: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      cancelled.push(await timed(args(words, 1)));
      const started = performance.now();
      await client.query('SELECT count(*) FROM generate_series(1, 1000000000)').catch(() => undefined);
      baseline.push(performance.now() - started);
    }
    return {
      commonWord: common[0]?.word ?? '',
      commonRecords: common[0]?.records ?? 0,
      commonWordMs: median(commonTimes),
      broadWords: words.length,
      broadMs: median(broadTimes),
      cancelMs: cancelled.map((run) => run.ms),
      codes: cancelled.map((run) => run.code),
      baselineMs: baseline,
    };
  } finally {
    await client.end();
  }
}
