import { statSync } from 'node:fs';
import { MemoryCache } from '../src/adapters/memory/memory-cache.js';
import { createSqlitePaperIndex } from '../src/adapters/sqlite/sqlite-paper-index.js';
import { loadConfig } from '../src/config/load-config.js';
import type { SearchRequest } from '../src/domain/search.js';
import { percentile } from '../src/platform/percentile.js';
import type { PaperIndex } from '../src/ports/paper-index.js';
import { SearchService } from '../src/services/search-service.js';
import { largeCorpus, loadBaseRecords } from './lib/large-corpus.js';
import { postgresCorpus, tableBytes } from './lib/postgres-corpus.js';
import type { BenchReport, BenchRow } from './lib/report.js';
import { benchRequest, settings, type Workload, workloads } from './search.bench.js';

type Adapter = 'SQLite' | 'PostgreSQL';

/** What one adapter at one size measured. */
interface SizeFigures {
  records: number;
  /** Records/s through upsert over the build's last tenth (null: built by a run that left no note). */
  ingestRate: number | null;
  bytes: number;
  rawTextBytes: number;
  /** Query milliseconds by kind (titles, keywords, claims), every setting together. */
  times: Record<string, number[]>;
}

function quantiles(samples: number[]) {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

/** "1m", "10M", "250k" or a plain number of records. */
function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kKmM]?)$/.exec(text.trim());
  if (!match) throw new Error(`BENCH_GROWTH_SIZES: not a size: ${text}`);
  const scale = { '': 1, k: 1_000, m: 1_000_000 }[(match[2] ?? '').toLowerCase()] ?? 1;
  return Math.round(Number(match[1]) * scale);
}

/** Every query of the mix (each workload's requests under each setting), warm-up first. */
async function timeQueries(index: PaperIndex, loads: Workload[]): Promise<Record<string, number[]>> {
  const service = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
  const times: Record<string, number[]> = {};
  for (const workload of loads) {
    const kind: number[] = [];
    for (const setting of settings) {
      const request = (input: Pick<SearchRequest, 'keywords' | 'query'>) => benchRequest(input, setting);
      for (const input of workload.requests.slice(0, 5)) await service.searchPapers(request(input));
      for (const input of workload.requests) {
        const started = performance.now();
        await service.searchPapers(request(input));
        kind.push(performance.now() - started);
      }
    }
    times[workload.kind] = kind;
  }
  return times;
}

async function measure(
  adapter: Adapter,
  records: number,
  loads: Workload[],
  log: (line: string) => void,
): Promise<SizeFigures> {
  // The SQLite corpus is built first either way: its note carries the raw text bytes of the records.
  const corpus = await largeCorpus({ records, log });
  if (adapter === 'SQLite') {
    const index = await createSqlitePaperIndex(corpus.path, { searchThreads: loadConfig().search.threads });
    try {
      return {
        records: corpus.records,
        ingestRate: corpus.lastTenthRate ?? null,
        bytes: statSync(corpus.path).size,
        rawTextBytes: corpus.rawTextBytes,
        times: await timeQueries(index, loads),
      };
    } finally {
      await index.close();
    }
  }
  const { index, schema, note } = await postgresCorpus(records, log);
  try {
    return {
      records: corpus.records,
      ingestRate: note?.lastTenthRate ?? null,
      bytes: (await tableBytes(schema)).total,
      rawTextBytes: corpus.rawTextBytes,
      times: await timeQueries(index, loads),
    };
  } finally {
    await index.close();
  }
}

/**
 * How search cost grows with the index (issue 38, item 3): the same 1,200-query mix (three kinds ×
 * four settings × 100; 240 with --quick) over the large corpus at each size of BENCH_GROWTH_SIZES
 * (default 1,000,100 and 10,001,000 — the 1M corpus is the search and postgres-index benches' own; --quick 20k,200k), on SQLite and on PostgreSQL (BENCH_GROWTH_ADAPTERS), each
 * corpus built once by the same generator (bench/lib/large-corpus.ts: real records, perturbed
 * replicas, the vocabulary growing by the real records' own Heaps curve) and reused by later runs.
 * Per size: ingest records/s over the build's last tenth (the rate into an index of that size),
 * bytes per record, size against the raw text, p50/p95 per query kind; then the ratios of the
 * largest size to the smallest against the lines. Building 10M records takes hours on two
 * cores: run it by name only.
 */
export async function growthBench(options: { quick: boolean }): Promise<BenchReport> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const sizes = (process.env.BENCH_GROWTH_SIZES ?? (options.quick ? '20k,200k' : '1000100,10001000'))
    .split(',')
    .map(parseSize)
    .sort((a, b) => a - b);
  const adapters = (process.env.BENCH_GROWTH_ADAPTERS ?? 'SQLite,PostgreSQL')
    .split(',')
    .map((name) => name.trim())
    .map((name): Adapter => {
      if (/^sqlite$/i.test(name)) return 'SQLite';
      if (/^postgres(ql)?$/i.test(name)) return 'PostgreSQL';
      throw new Error(`BENCH_GROWTH_ADAPTERS: unknown adapter ${name} (SQLite, PostgreSQL)`);
    });
  if (sizes.length < 2) throw new Error('BENCH_GROWTH_SIZES: name at least two sizes');
  const loads = workloads(await loadBaseRecords(), options.quick ? 20 : 100);
  const rows: BenchRow[] = [];
  const summary: string[] = [];
  for (const adapter of adapters) {
    const figures: SizeFigures[] = [];
    for (const records of sizes) {
      const measured = await measure(adapter, records, loads, log);
      figures.push(measured);
      const all = Object.values(measured.times).flat();
      const overall = quantiles(all);
      rows.push({
        subject: `${adapter}, ${measured.records.toLocaleString('en-US')} records`,
        metrics: {
          'ingest records/s (last tenth)': measured.ingestRate ?? '—',
          'bytes per record': measured.bytes / measured.records,
          'size / raw text': measured.bytes / measured.rawTextBytes,
          'all p50 ms': overall.p50,
          'all p95 ms': overall.p95,
          ...Object.fromEntries(
            Object.entries(measured.times).flatMap(([kind, times]) => {
              const q = quantiles(times);
              return [
                [`${kind} p50 ms`, q.p50],
                [`${kind} p95 ms`, q.p95],
              ];
            }),
          ),
          queries: all.length,
        },
      });
    }
    const small = figures[0] as SizeFigures;
    const large = figures[figures.length - 1] as SizeFigures;
    const growth = `${adapter} ${small.records.toLocaleString('en-US')} → ${large.records.toLocaleString('en-US')}`;
    const line = (label: string, ratio: number | null, goal: number, higherIsBetter: boolean) =>
      ratio === null || !Number.isFinite(ratio)
        ? `${growth}: ${label}: not measured (a corpus built by a run that left no note; drop it to rebuild)`
        : `${growth}: ${label} ${ratio.toFixed(2)}× (goal ${higherIsBetter ? '≥' : '≤'} ${goal}×: ${(higherIsBetter ? ratio >= goal : ratio <= goal) ? 'met' : 'NOT met'})`;
    for (const kind of Object.keys(large.times)) {
      const before = quantiles(small.times[kind] ?? []).p95;
      const after = quantiles(large.times[kind] ?? []).p95;
      summary.push(line(`search p95, ${kind}`, after / before, 2, false));
    }
    summary.push(
      line(
        'search p95, all queries',
        quantiles(Object.values(large.times).flat()).p95 / quantiles(Object.values(small.times).flat()).p95,
        2,
        false,
      ),
      line(
        'ingest records/s',
        small.ingestRate && large.ingestRate ? large.ingestRate / small.ingestRate : null,
        0.8,
        true,
      ),
      line('bytes per record', large.bytes / large.records / (small.bytes / small.records), 1.1, false),
    );
    if (adapter === 'PostgreSQL')
      summary.push(
        `PostgreSQL size at ${large.records.toLocaleString('en-US')} records: ${(large.bytes / large.rawTextBytes).toFixed(2)}× the raw text (goal ≤ 2×: ${large.bytes <= 2 * large.rawTextBytes ? 'met' : 'NOT met'})`,
      );
  }
  const corpus = await largeCorpus({ records: sizes[sizes.length - 1] as number, log });
  summary.push(
    `corpus: ${corpus.records0.toLocaleString('en-US')} real records replicated and perturbed; vocabulary of the real records ${corpus.vocabulary.types.toLocaleString('en-US')} words, Heaps β ${corpus.vocabulary.beta.toFixed(3)} (measured on them); ${corpus.vocabulary.novel.toLocaleString('en-US')} new words added at the largest size`,
    'The machine is shared: absolute timings are noisy; the sizes run one after another in one run.',
  );
  return { name: 'Growth: the same query mix at each index size, SQLite and PostgreSQL', rows, summary };
}
