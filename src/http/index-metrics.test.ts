import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { installIndexMetrics } from './index-metrics.js';

const series = async (registry: Registry) =>
  Object.fromEntries(
    (await registry.getSingleMetric('alexandria_index_searches_total')?.get())?.values.map((value) => [
      value.labels.served_by,
      value.value,
    ]) ?? [],
  );

describe('index search metrics', () => {
  it('counts searches by the database that answered, as of each scrape', async () => {
    const registry = new Registry();
    const index = { searchesServed: { primary: 0, replicas: 0 } };
    installIndexMetrics(registry, index);
    expect(await series(registry)).toEqual({ primary: 0, replica: 0 });
    index.searchesServed.replicas += 3;
    index.searchesServed.primary += 1;
    expect(await series(registry)).toEqual({ primary: 1, replica: 3 });
    index.searchesServed.replicas += 2;
    expect(await series(registry)).toEqual({ primary: 1, replica: 5 });
    expect(await registry.metrics()).toContain('alexandria_index_searches_total{served_by="replica"} 5');
  });

  it('adds no series for an index without read replicas to count (SQLite)', async () => {
    const registry = new Registry();
    installIndexMetrics(registry, {});
    expect(registry.getSingleMetric('alexandria_index_searches_total')).toBeUndefined();
  });
});
