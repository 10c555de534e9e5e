import { Counter, Histogram, type Registry } from 'prom-client';
import type { SourceMonitor } from '../services/federation/source-monitor.js';

/**
 * Prometheus series for upstream sources, fed by the source monitor:
 * `alexandria_source_calls_total{operation,source,status}` and
 * `alexandria_source_call_duration_seconds{operation,source}`. Returns the unsubscribe function.
 */
export function installSourceMetrics(registry: Registry, monitor: SourceMonitor): () => void {
  const calls = new Counter({
    name: 'alexandria_source_calls_total',
    help: 'Upstream source calls by operation, source and outcome (ok, failed, timeout, skipped).',
    labelNames: ['operation', 'source', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'alexandria_source_call_duration_seconds',
    help: 'Upstream source call latency by operation and source.',
    labelNames: ['operation', 'source'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8],
    registers: [registry],
  });
  return monitor.onReport((operation, report) => {
    calls.inc({ operation, source: report.source, status: report.status });
    if (report.durationMs !== undefined) {
      duration.observe({ operation, source: report.source }, report.durationMs / 1000);
    }
  });
}
