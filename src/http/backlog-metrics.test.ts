import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { IndexStats } from '../ports/paper-index.js';
import { installBacklogMetrics } from './backlog-metrics.js';

const model = 'onnx:test';

/** An index whose stats the test sets, counting the reads. */
function settableIndex(stats: IndexStats) {
  const index = {
    stats: { ...stats },
    reads: 0,
    failing: false,
    async statsOf() {
      index.reads += 1;
      if (index.failing) throw new Error('database out');
      return structuredClone(index.stats);
    },
  };
  return index;
}

const value = async (registry: Registry, name: string) =>
  (await registry.getSingleMetric(name)?.get())?.values[0]?.value;

describe('backlog metrics', () => {
  it('shows records and the backlog, its drain rate and its finishing time, reading the index once per interval', async () => {
    let now = 0;
    const registry = new Registry();
    const index = settableIndex({ records: 1000, vectors: { model, stored: 200, pending: 800 } });
    installBacklogMetrics(registry, { stats: () => index.statsOf() }, { vectorModel: model, now: () => now });
    let page = await registry.metrics();
    expect(page).toContain('alexandria_index_records 1000');
    expect(page).toContain(`alexandria_record_vectors_pending{model="${model}"} 800`);
    expect(page).toContain(`alexandria_record_vectors_stored{model="${model}"} 200`);
    // Five gauges, one read.
    expect(index.reads).toBe(1);
    // No rate from one reading: no drain or finishing time yet.
    expect(page).not.toContain('alexandria_record_vectors_drain_per_second{');
    expect(page).not.toContain('alexandria_record_vectors_eta_seconds{');

    now = 2_000;
    index.stats = { records: 1000, vectors: { model, stored: 300, pending: 700 } };
    expect(await value(registry, 'alexandria_record_vectors_pending')).toBe(800);
    expect(index.reads).toBe(1);

    now = 10_000;
    page = await registry.metrics();
    expect(index.reads).toBe(2);
    expect(page).toContain(`alexandria_record_vectors_pending{model="${model}"} 700`);
    // 100 stored in 10 s: 10 a second, 700 left: 70 s.
    expect(page).toContain(`alexandria_record_vectors_drain_per_second{model="${model}"} 10`);
    expect(page).toContain(`alexandria_record_vectors_eta_seconds{model="${model}"} 70`);

    // The database is out: the last figures stay, and the next scrape asks again.
    now = 20_000;
    index.failing = true;
    expect(await value(registry, 'alexandria_record_vectors_pending')).toBe(700);
    index.failing = false;
    index.stats = { records: 1000, vectors: { model, stored: 1000, pending: 0 } };
    now = 21_000;
    page = await registry.metrics();
    expect(page).toContain(`alexandria_record_vectors_pending{model="${model}"} 0`);
    expect(page).toContain(`alexandria_record_vectors_eta_seconds{model="${model}"} 0`);
  });

  it('does not hold a scrape while the database does not answer: the last figures stay', async () => {
    const registry = new Registry();
    let now = 0;
    let answer = true;
    installBacklogMetrics(
      registry,
      {
        stats: () =>
          answer ? Promise.resolve({ records: 42 }) : new Promise<IndexStats>(() => {}) /* never answers */,
      },
      { maxWaitMs: 50, now: () => now },
    );
    expect(await registry.metrics()).toContain('alexandria_index_records 42');
    answer = false;
    now = 10_000;
    const started = performance.now();
    expect(await registry.metrics()).toContain('alexandria_index_records 42');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('shows only the record count when record vectors are off', async () => {
    const registry = new Registry();
    const reads: Array<string | undefined> = [];
    installBacklogMetrics(
      registry,
      {
        stats: async (vectorModel) => {
          reads.push(vectorModel);
          return { records: 5 };
        },
      },
      {},
    );
    const page = await registry.metrics();
    expect(page).toContain('alexandria_index_records 5');
    expect(page).not.toContain('alexandria_record_vectors');
    expect(reads).toEqual([undefined]);
  });
});
