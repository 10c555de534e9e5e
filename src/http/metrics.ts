import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of one app instance (own registry, so tests can build several apps). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): HttpMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'alexandria_' });
  const requests = new Counter({
    name: 'alexandria_http_requests_total',
    help: 'HTTP requests by route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'alexandria_http_request_duration_seconds',
    help: 'HTTP request latency by route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return { registry, requests, duration };
}

/** Records every response under its route template (not the raw URL, to bound cardinality). */
export function installMetrics(app: FastifyInstance, metrics: HttpMetrics): void {
  // The labelled series of each method, route template and status, looked up once: prom-client
  // otherwise hashes the label object on every increment and observation (decision 0053). Bounded
  // like the series themselves: methods × registered routes × statuses.
  const series = new Map<string, { count: () => void; observe: (seconds: number) => void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const id = `${request.method} ${reply.statusCode} ${route}`;
    let entry = series.get(id);
    if (entry === undefined) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      const counter = metrics.requests.labels(labels);
      const histogram = metrics.duration.labels(labels);
      entry = { count: () => counter.inc(), observe: (seconds) => histogram.observe(seconds) };
      series.set(id, entry);
    }
    entry.count();
    entry.observe(reply.elapsedTime / 1000);
    done();
  });
}
