import { Gauge, type Registry } from 'prom-client';
import type { IndexStats, PaperIndex } from '../ports/paper-index.js';
import { VectorBacklogTrend } from '../services/search/vector-backlog.js';

/**
 * The index's size and its record-vector backlog (decision 0051), read from the index at scrape
 * time — the deployment's figures, whichever process is scraped:
 *
 * - `alexandria_index_records`: records in the paper index (papers and patents);
 * - `alexandria_record_vectors_pending{model}` / `_stored{model}`: records waiting for a vector of
 *   the record-vector model, and records that have one (absent when record vectors are off);
 * - `alexandria_record_vectors_drain_per_second{model}`: vectors stored per second over the last
 *   five minutes of scrapes, and `alexandria_record_vectors_eta_seconds{model}`: when the backlog
 *   will be empty at that pace (0 when it is; absent while nothing drains).
 *
 * One `PaperIndex.stats` call serves all of them, at most once per `minIntervalMs` (scrapes of
 * several gauges, or scrapers, in between reuse it). A failed read, or one slower than `maxWaitMs`
 * (2 s: the database is out and the connect timeout runs), keeps the last figures.
 */
export function installBacklogMetrics(
  registry: Registry,
  index: Pick<PaperIndex, 'stats'>,
  options: { vectorModel?: string; minIntervalMs?: number; maxWaitMs?: number; now?: () => number },
): void {
  const now = options.now ?? Date.now;
  const minIntervalMs = options.minIntervalMs ?? 5_000;
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  const trend = new VectorBacklogTrend();
  let last: { at: number; stats: Promise<IndexStats> } | undefined;
  let known: IndexStats | undefined;
  const read = async (): Promise<IndexStats | undefined> => {
    const at = now();
    if (!last || at - last.at >= minIntervalMs) {
      const stats = index.stats(options.vectorModel);
      last = { at, stats };
      stats.then(
        (value) => {
          known = value;
          if (value.vectors) trend.observe(at, value.vectors);
        },
        () => {
          if (last?.stats === stats) last = undefined;
        },
      );
    }
    // A scrape does not wait out a database outage (connect timeouts): it shows the last figures.
    const settled = last.stats.catch(() => known);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<IndexStats | undefined>((resolve) => {
      timer = setTimeout(() => resolve(known), maxWaitMs);
      timer.unref?.();
    });
    return Promise.race([settled, waited]).finally(() => clearTimeout(timer));
  };
  const gauge = (
    name: string,
    help: string,
    labelled: boolean,
    set: (gauge: Gauge, stats: IndexStats) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: labelled ? ['model'] : [],
      registers: [registry],
      async collect() {
        const stats = await read();
        if (stats) set(this, stats);
      },
    });
  gauge('alexandria_index_records', 'Records in the paper index (papers and patents).', false, (g, stats) =>
    g.set(stats.records),
  );
  if (!options.vectorModel) return;
  gauge(
    'alexandria_record_vectors_pending',
    'Index records waiting for a vector of the record-vector model (new records, changed titles or abstracts).',
    true,
    (g, stats) => stats.vectors && g.set({ model: stats.vectors.model }, stats.vectors.pending),
  );
  gauge(
    'alexandria_record_vectors_stored',
    'Index records that have a vector of the record-vector model.',
    true,
    (g, stats) => stats.vectors && g.set({ model: stats.vectors.model }, stats.vectors.stored),
  );
  gauge(
    'alexandria_record_vectors_drain_per_second',
    'Record vectors stored per second by the whole deployment, over the last five minutes of scrapes.',
    true,
    (g, stats) => {
      const drain = trend.estimate()?.drainPerSecond;
      if (stats.vectors && drain !== undefined) g.set({ model: stats.vectors.model }, drain);
    },
  );
  gauge(
    'alexandria_record_vectors_eta_seconds',
    'Seconds until no record waits for a vector at the current drain rate (absent while nothing drains).',
    true,
    (g, stats) => {
      g.reset();
      const eta = trend.estimate()?.etaSeconds;
      if (stats.vectors && eta !== undefined) g.set({ model: stats.vectors.model }, eta);
    },
  );
}
