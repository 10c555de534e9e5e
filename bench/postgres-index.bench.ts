import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MemoryCache } from '../src/adapters/memory/memory-cache.js';
import { preparedMs } from '../src/adapters/postgres/postgres-inverted-prepare.js';
import { invertedWriteTimings } from '../src/adapters/postgres/postgres-inverted-writes.js';
import { createPostgresPaperIndex } from '../src/adapters/postgres/postgres-paper-index.js';
import { createSqlitePaperIndex } from '../src/adapters/sqlite/sqlite-paper-index.js';
import { loadConfig } from '../src/config/load-config.js';
import type { Paper } from '../src/domain/paper.js';
import type { SearchRequest } from '../src/domain/search.js';
import { resolveInputs } from '../src/ingest/ingest-inputs.js';
import { defaultIngestBatchSize, ingest } from '../src/ingest/ingest-pipeline.js';
import { percentile } from '../src/platform/percentile.js';
import type { PaperIndex } from '../src/ports/paper-index.js';
import { SearchService } from '../src/services/search-service.js';
import { baseInputs, largeCorpus, loadBaseRecords } from './lib/large-corpus.js';
import { searchMemoryFigures } from './lib/pg-search-memory.js';
import { statementTimeoutFigures } from './lib/pg-statement-timeout.js';
import { benchUrl, corpusSchema, ensureDatabase, postgresCorpus, tableBytes } from './lib/postgres-corpus.js';
import type { BenchReport, BenchRow } from './lib/report.js';
import { benchRequest, settings, workloads } from './search.bench.js';

/** Where an ingest's time went: preparing records (tokenising, deflating), the adapter's upsert after that, and the rest. */
interface IngestSplit {
  records: number;
  rate: number;
  tokeniseMs: number;
  upsertMs: number;
  elapsedMs: number;
}

/**
 * Records/s of the ingest pipeline (its default batch size; BENCH_INGEST_BATCH to try another) over
 * the real corpora into `index`, upserts timed. The PostgreSQL index prepares its records itself,
 * between the previous batch's statements (its own count is reported as the tokenising time).
 */
async function ingestRate(index: PaperIndex): Promise<IngestSplit> {
  const inputs = (
    await Promise.all(baseInputs.map(async (input) => resolveInputs(input.path, process.stdin)))
  ).flat();
  let upsertMs = 0;
  const upsert = async (papers: readonly Paper[]) => {
    const started = performance.now();
    try {
      return await index.upsert(papers);
    } finally {
      upsertMs += performance.now() - started;
    }
  };
  const timed = new Proxy(index, {
    get: (target, property) => {
      if (property === 'upsert') return upsert;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const report = await ingest(timed, inputs, {
    batchSize: Number(process.env.BENCH_INGEST_BATCH ?? defaultIngestBatchSize),
  });
  return {
    records: report.read,
    rate: report.read / (report.elapsedMs / 1000),
    tokeniseMs: 0,
    upsertMs,
    elapsedMs: report.elapsedMs,
  };
}

function splitLine(split: IngestSplit): string {
  const share = (ms: number) => `${((100 * ms) / split.elapsedMs).toFixed(0)}%`;
  return `preparing records ${(split.tokeniseMs / 1000).toFixed(1)} s (${share(split.tokeniseMs)}), upsert calls ${(split.upsertMs / 1000).toFixed(1)} s (${share(split.upsertMs)}; wall time, overlapping reading and each other while one batch is in flight; PostgreSQL's include its preparing), elapsed ${(split.elapsedMs / 1000).toFixed(1)} s`;
}

/** The statement_timeout figures of decision 0039 (goal: a 100 ms timeout ends a search within 200 ms). */
async function timeoutLine(schema: string, rows: BenchRow[], summary: string[]): Promise<void> {
  const figures = await statementTimeoutFigures(benchUrl, schema);
  const cancel = quantiles(figures.cancelMs);
  const worst = Math.max(...figures.cancelMs);
  const baseline = quantiles(figures.baselineMs);
  const stopped = figures.codes.filter((code) => code === '57014').length;
  rows.push({
    subject: `statement_timeout 100 ms: the ${figures.broadWords} most common words, sorted by citations`,
    metrics: {
      'to completion ms': figures.broadMs,
      'to 57014 p50 ms': cancel.p50,
      'to 57014 p95 ms': cancel.p95,
      'to 57014 max ms': worst,
      'PostgreSQL count() to 57014 p95 ms': baseline.p95,
      'runs ended by the timeout': stopped,
      runs: figures.cancelMs.length,
    },
  });
  summary.push(
    `statement_timeout = 100 ms: a search of the ${figures.broadWords} most common words (sorted by citations, ${figures.broadMs.toFixed(0)} ms to completion) ended with 57014 in ${stopped} of ${figures.cancelMs.length} runs, ${cancel.p50.toFixed(0)} ms p50 / ${cancel.p95.toFixed(0)} ms p95 / ${worst.toFixed(0)} ms max from issue to error (goal ≤ 200 ms: ${stopped === figures.cancelMs.length && worst <= 200 ? 'met' : 'NOT met'}; PostgreSQL's own count() over generate_series under the same timeout, alternated: p50 ${baseline.p50.toFixed(0)} / p95 ${baseline.p95.toFixed(0)} / max ${Math.max(...figures.baselineMs).toFixed(0)} ms); the most common word alone ("${figures.commonWord}", ${figures.commonRecords.toLocaleString('en-US')} records) completes in ${figures.commonWordMs.toFixed(1)} ms`,
  );
}

/** The backend's peak memory while searching the most common word (decision 0067; goal ≤ 64 MB at 10M). */
async function memoryLine(schema: string, rows: BenchRow[], summary: string[]): Promise<void> {
  const figures = await searchMemoryFigures(benchUrl, schema);
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  for (const row of figures.rows)
    rows.push({
      subject: `most common word "${figures.word}" (${figures.records.toLocaleString('en-US')} records), ${row.sort}, ${row.window === 'default' ? 'default window' : row.window === 'whole list' ? 'whole list in one window' : `windows of ${row.window} documents`}`,
      metrics: { 'backend peak added MiB': row.addedBytes / 2 ** 20, ms: row.ms },
    });
  const windowed = figures.rows.filter((row) => row.window === 'default');
  const worst = Math.max(...windowed.map((row) => row.addedBytes));
  const at = (window: string) =>
    figures.rows
      .filter((row) => row.window === window)
      .map((row) => `${row.sort} ${mib(row.addedBytes)} MiB in ${row.ms.toFixed(0)} ms`)
      .join(', ');
  summary.push(
    `backend memory searching the most common word "${figures.word}" (${figures.records.toLocaleString('en-US')} records; alexandria_memory: the search's own memory contexts, scratch and metadata cache, peak minus start, warm): ${windowed.map((row) => `${row.sort} ${mib(row.addedBytes)} MiB in ${row.ms.toFixed(0)} ms`).join(', ')} (goal ≤ 64 MB: ${worst <= 64 * 2 ** 20 ? 'met' : 'NOT met'}); windows of 16,384 documents: ${at('16384')}; the whole list in one window (alexandria_pg ≤ 1.3): ${at('whole list')}; metadata cache ${mib(figures.cacheBytes)} MiB (alexandria.cache_bytes, default 64 MiB)`,
  );
}

function quantiles(samples: number[]) {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

/**
 * The PostgreSQL paper index beside the SQLite one (issue: scale out): the same ≥ 1M-record corpus
 * (same generator, same records), the same queries through the same search service, p50/p95 per
 * query kind and setting; ingest records/s through the ingest pipeline on the real corpora for
 * both adapters; bytes on disk against the raw text. The PostgreSQL corpus is built once into the
 * database `alexandria_bench` (BENCH_DATABASE_URL to use another) and reused.
 *
 * The PostgreSQL index has one layout, inverted (decisions 0024, 0058). BENCH_PG_RECORDS: the corpus size (default 1,000,100; 100,000 with --quick).
 * BENCH_PG_INGEST_ONLY=1: only the ingest of the real corpora (no large corpus, no latency, no size).
 * BENCH_PG_TIMEOUT_ONLY=1: only the statement_timeout and search-memory lines, on a corpus built by an earlier run.
 */
export async function postgresIndexBench(options: { quick: boolean }): Promise<BenchReport> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const records = Number(process.env.BENCH_PG_RECORDS ?? (options.quick ? 100_000 : 1_000_100));
  await ensureDatabase(benchUrl);
  const rows: BenchRow[] = [];
  const summary: string[] = [];
  if (process.env.BENCH_PG_TIMEOUT_ONLY === '1') {
    await timeoutLine(corpusSchema(records), rows, summary);
    await memoryLine(corpusSchema(records), rows, summary);
    return { name: 'PostgreSQL paper index: a broad search under statement_timeout', rows, summary };
  }

  // Ingest: the real corpora through the pipeline into a fresh index of each kind.
  const scratch = `ingest_${process.pid}`;
  const pgFresh = await createPostgresPaperIndex(benchUrl, { schema: scratch });
  const before = { ...invertedWriteTimings };
  const preparedBefore = preparedMs.total;
  // The index prepares records itself, in slices between the previous batch's statements: its time
  // is the adapter's own count.
  const pgIngest = await ingestRate(pgFresh);
  pgIngest.tokeniseMs = preparedMs.total - preparedBefore;
  const phases = Object.entries(invertedWriteTimings)
    .map(([phase, ms]) => `${phase} ${((ms - before[phase as keyof typeof before]) / 1000).toFixed(1)} s`)
    .join(', ');
  await pgFresh.close();
  const folder = await mkdtemp(join(tmpdir(), 'alexandria-pg-bench-'));
  const sqliteFresh = await createSqlitePaperIndex(join(folder, 'ingest.db'), { mmapBytes: 0 });
  const sqliteIngest = await ingestRate(sqliteFresh);
  await sqliteFresh.close();
  await rm(folder, { recursive: true, force: true });
  const dropper = new pg.Client({ connectionString: benchUrl });
  await dropper.connect();
  await dropper.query(`drop schema if exists ${scratch} cascade`);
  await dropper.end();
  rows.push({
    subject: 'ingest pipeline, real corpora: PostgreSQL',
    metrics: {
      records: pgIngest.records,
      'records/s': pgIngest.rate,
      'tokenise s': pgIngest.tokeniseMs / 1000,
      'upsert s': pgIngest.upsertMs / 1000,
    },
  });
  rows.push({
    subject: 'ingest pipeline, real corpora: SQLite',
    metrics: { records: sqliteIngest.records, 'records/s': sqliteIngest.rate },
  });
  summary.push(
    `ingest into PostgreSQL: ${pgIngest.rate.toFixed(0)} records/s (goal ≥ 3000: ${pgIngest.rate >= 3000 ? 'met' : 'NOT met'}); SQLite in the same run ${sqliteIngest.rate.toFixed(0)} records/s (${(pgIngest.rate / sqliteIngest.rate).toFixed(2)}×)`,
    `  PostgreSQL ingest time: ${splitLine(pgIngest)}`,
    `  PostgreSQL upsert phases (inside the write transaction): ${phases}`,
    `  SQLite ingest time: ${splitLine(sqliteIngest)}`,
  );

  // BENCH_PG_INGEST_ONLY=1: the ingest figures only (the real corpora, well under a minute).
  if (process.env.BENCH_PG_INGEST_ONLY === '1')
    return { name: 'PostgreSQL paper index beside SQLite: ingest only', rows, summary };

  // The large corpus in both adapters.
  const corpus = await largeCorpus({ records, log });
  const { index: postgres, schema, note } = await postgresCorpus(records, log);
  const threads = loadConfig().search.threads;
  const sqlite = await createSqlitePaperIndex(corpus.path, { searchThreads: threads });
  const services = {
    PostgreSQL: new SearchService(postgres, new MemoryCache(), { cacheTtlSeconds: 0 }),
    SQLite: new SearchService(sqlite, new MemoryCache(), { cacheTtlSeconds: 0 }),
  };
  const base = await loadBaseRecords();
  const perKind = options.quick ? 20 : 100;
  const all: Record<string, number[]> = { PostgreSQL: [], SQLite: [] };
  let worstP95 = 0;
  for (const workload of workloads(base, perKind)) {
    for (const setting of settings) {
      const times: Record<string, number[]> = { PostgreSQL: [], SQLite: [] };
      const request = (input: Pick<SearchRequest, 'keywords' | 'query'>) => benchRequest(input, setting);
      for (const service of Object.values(services))
        for (const input of workload.requests.slice(0, 5)) await service.searchPapers(request(input));
      for (const input of workload.requests) {
        // Alternate the adapters query by query, so that machine noise falls on both alike.
        for (const [name, service] of Object.entries(services)) {
          const started = performance.now();
          await service.searchPapers(request(input));
          times[name]?.push(performance.now() - started);
        }
      }
      const p = quantiles(times.PostgreSQL ?? []);
      const s = quantiles(times.SQLite ?? []);
      all.PostgreSQL?.push(...(times.PostgreSQL ?? []));
      all.SQLite?.push(...(times.SQLite ?? []));
      worstP95 = Math.max(worstP95, p.p95);
      rows.push({
        subject: `${workload.kind}: ${setting.name}`,
        metrics: {
          'PostgreSQL p50 ms': p.p50,
          'PostgreSQL p95 ms': p.p95,
          'SQLite p50 ms': s.p50,
          'SQLite p95 ms': s.p95,
          'p95 ratio PG/SQLite': p.p95 / s.p95,
        },
      });
    }
  }
  const overall = quantiles(all.PostgreSQL ?? []);
  const sqliteOverall = quantiles(all.SQLite ?? []);
  summary.push(
    `${records.toLocaleString('en-US')} records; PostgreSQL top-10 over all rows: p50 ${overall.p50.toFixed(1)} ms, p95 ${overall.p95.toFixed(1)} ms (goal p95 ≤ 100 ms: ${overall.p95 <= 100 ? 'met' : 'NOT met'}); worst row p95 ${worstP95.toFixed(1)} ms; SQLite in the same run p50 ${sqliteOverall.p50.toFixed(1)} ms, p95 ${sqliteOverall.p95.toFixed(1)} ms`,
  );
  await timeoutLine(schema, rows, summary);
  await memoryLine(schema, rows, summary);
  const bytes = await tableBytes(schema);
  const sqliteBytes = statSync(corpus.path).size;
  summary.push(
    `PostgreSQL size ${(bytes.total / 2 ** 20).toFixed(0)} MiB = ${(bytes.total / corpus.rawTextBytes).toFixed(2)}× the raw text (${(corpus.rawTextBytes / 2 ** 20).toFixed(0)} MiB; goal ≤ 2×: ${bytes.total <= 2 * corpus.rawTextBytes ? 'met' : 'NOT met'}); ${(((bytes.total / records) * 1e6) / 2 ** 30).toFixed(2)} GiB per million records; ${bytes.parts}; SQLite ${(sqliteBytes / 2 ** 20).toFixed(0)} MiB = ${(sqliteBytes / corpus.rawTextBytes).toFixed(2)}×`,
  );
  if (note)
    summary.push(
      `PostgreSQL corpus built at ${(note.records / note.buildSeconds).toFixed(0)} records/s through upsert (batches of 2000; ${note.lastTenthRate.toFixed(0)} records/s over its last tenth)`,
    );
  await postgres.close();
  await sqlite.close();
  return {
    name: 'PostgreSQL paper index beside SQLite: ingest, top-10 latency at ≥ 1M records, size',
    rows,
    summary,
  };
}
