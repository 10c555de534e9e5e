import { Counter, type Registry } from 'prom-client';
import type { PaperIndex } from '../ports/paper-index.js';

/**
 * `alexandria_index_searches_total{served_by="primary"|"replica"}`: which database answered the
 * paper-index searches of this process, so an operator sees searches reach the read replicas
 * (ALEXANDRIA_DATABASE_READ_URLS) and how many fall back to the primary while replicas lag. Only
 * for an index that counts them (PostgreSQL); read at scrape time.
 */
export function installIndexMetrics(registry: Registry, index: Pick<PaperIndex, 'searchesServed'>): void {
  const served = index.searchesServed;
  if (!served) return;
  const reported = { primary: 0, replicas: 0 };
  const counter = new Counter({
    name: 'alexandria_index_searches_total',
    help: 'Paper-index searches by the database that answered: the primary (DATABASE_URL) or a read replica (ALEXANDRIA_DATABASE_READ_URLS).',
    labelNames: ['served_by'] as const,
    registers: [registry],
    collect() {
      for (const [label, key] of [
        ['primary', 'primary'],
        ['replica', 'replicas'],
      ] as const) {
        const delta = served[key] - reported[key];
        if (delta > 0) this.inc({ served_by: label }, delta);
        reported[key] = served[key];
      }
    },
  });
  counter.inc({ served_by: 'primary' }, 0);
  counter.inc({ served_by: 'replica' }, 0);
}
