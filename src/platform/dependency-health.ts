import type { Logger } from './logger.js';

/** The shared services a scaled-out Alexandria depends on. */
export type Dependency = 'postgres' | 'redis' | 'blob_store';

/** What one dependency's outage does to this process, said once in the log when it starts. */
const consequences: Record<Dependency, string> = {
  postgres: 'requests that need the database answer 503 with Retry-After; jobs wait and retry',
  redis:
    'rate limits fall back to per-process buckets, the shared cache is bypassed, upstream circuit breakers and request spacing are per process, jobs wait until it returns',
  blob_store:
    'reads that need no stored file go on; uploads and reads of stored PDFs answer 503 with Retry-After',
};

/**
 * Which dependencies this process currently finds out of service, and how often it fell back because
 * of them (docs/decisions/0046). Adapters report a failure with `failed` (and a success with
 * `answered`); the log says when a dependency goes away and when it is back — once per change, not
 * once per request — and `/metrics` shows `alexandria_dependency_up` and
 * `alexandria_dependency_fallbacks_total`.
 */
export class DependencyHealth {
  private readonly downSince = new Map<Dependency, number>();
  private readonly fallbackCounts = new Map<string, number>();

  constructor(
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** `dependency` failed an operation of `feature`; the process falls back (or fails that request). */
  failed(dependency: Dependency, feature: string, error?: unknown): void {
    const key = `${dependency}\u0000${feature}`;
    this.fallbackCounts.set(key, (this.fallbackCounts.get(key) ?? 0) + 1);
    if (this.downSince.has(dependency)) return;
    this.downSince.set(dependency, this.now());
    this.logger?.warn(
      { dependency, feature, reason: error instanceof Error ? error.message : String(error ?? '') },
      `${dependency} is unavailable: ${consequences[dependency]}`,
    );
  }

  /** `dependency` answered again (a reconnect, a successful operation). */
  answered(dependency: Dependency): void {
    const since = this.downSince.get(dependency);
    if (since === undefined) return;
    this.downSince.delete(dependency);
    this.logger?.warn(
      { dependency, outageSeconds: Math.round((this.now() - since) / 100) / 10 },
      `${dependency} is available again`,
    );
  }

  /** Whether the last word on `dependency` was a failure. */
  isDown(dependency: Dependency): boolean {
    return this.downSince.has(dependency);
  }

  /** Every fallback so far, per dependency and feature (for metrics). */
  fallbacks(): Array<{ dependency: Dependency; feature: string; count: number }> {
    return [...this.fallbackCounts].map(([key, count]) => {
      const [dependency, feature] = key.split('\u0000') as [Dependency, string];
      return { dependency, feature, count };
    });
  }
}
