import { Counter, Gauge, type Registry } from 'prom-client';
import type { Dependency, DependencyHealth } from '../platform/dependency-health.js';

/**
 * `alexandria_dependency_up{dependency}` (1 while this process last found it answering, 0 while it
 * finds it out) for the dependencies this process uses, and
 * `alexandria_dependency_fallbacks_total{dependency,feature}`: operations that fell back (a Redis
 * rate limit decided in process, a cache read bypassed) or failed with 503 because of an outage
 * (docs/decisions/0046). Read at scrape time.
 */
export function installDependencyMetrics(
  registry: Registry,
  health: DependencyHealth,
  dependencies: readonly Dependency[],
): void {
  new Gauge({
    name: 'alexandria_dependency_up',
    help: 'Whether this process last found the dependency answering (1) or out of service (0).',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      for (const dependency of dependencies) this.set({ dependency }, health.isDown(dependency) ? 0 : 1);
    },
  });
  const reported = new Map<string, number>();
  new Counter({
    name: 'alexandria_dependency_fallbacks_total',
    help: 'Operations that fell back to a per-process substitute, or failed with 503, because a dependency was out.',
    labelNames: ['dependency', 'feature'] as const,
    registers: [registry],
    collect() {
      for (const { dependency, feature, count } of health.fallbacks()) {
        const key = `${dependency}/${feature}`;
        const delta = count - (reported.get(key) ?? 0);
        if (delta > 0) this.inc({ dependency, feature }, delta);
        reported.set(key, count);
      }
    },
  });
}
