import type { Logger } from '../../platform/logger.js';
import type { Cache } from '../../ports/cache.js';
import type { CircuitBreakers } from '../../ports/circuit-breaker.js';
import type { Clock } from '../../ports/clock.js';
import type { PaperSource } from '../../ports/paper-source.js';
import type { PatentSource } from '../../ports/patent-source.js';
import type { RateGates } from '../../ports/rate-gate.js';
import { userAgent } from './shared/records.js';
import type { SourcePolicy, SourceSettings } from './shared/source-module.js';
import { type FetchFunction, UpstreamClient } from './shared/upstream-client.js';
import { sourceModules } from './source-modules.js';

/** Politeness and caching per source (docs/decisions/0005), as each source's module declares them. */
export const sourcePolicies: Record<string, SourcePolicy> = Object.fromEntries(
  sourceModules.map((module) => [module.name, module.policy]),
);

/** The setting source `name` needs and `settings` lacks (its environment variable), if any. */
export function missingRequirement(name: string, settings: SourceSettings): string | undefined {
  return sourceModules.find((module) => module.name === name)?.missing?.(settings);
}

/** The values of the `sources` config section this factory needs (kept free of the config module). */
export interface UpstreamSourcesOptions extends SourceSettings {
  /** Source names to construct (already resolved from "all"). */
  enabled: readonly string[];
  sourceTimeoutMs: number;
  breakerCooldownMs: number;
  /** Base URL per source name (mirrors, loopback fakes). */
  baseUrls: Record<string, string>;
  cache: Cache;
  /** Request spacing and circuit breakers per source (in Redis when replicas share them); default: in memory. */
  rateGates?: RateGates;
  breakers?: CircuitBreakers;
  clock: Clock;
  logger?: Logger;
  fetch?: FetchFunction;
}

export interface UpstreamSources {
  /** Paper sources in preference order (Unpaywall excluded: see `openAccess`). */
  sources: PaperSource[];
  patentSources: PatentSource[];
  /** Unpaywall, when enabled: open PDFs by DOI. */
  openAccess?: PaperSource;
}

/**
 * Builds the enabled source adapters (`source-modules.ts`, in its order), each with its own resilient
 * client; a source whose requirements are not met (a key, a contact address) is left out.
 */
export function createUpstreamSources(options: UpstreamSourcesOptions): UpstreamSources {
  const enabled = new Set(options.enabled);
  const result: UpstreamSources = { sources: [], patentSources: [] };
  for (const module of sourceModules) {
    if (!enabled.has(module.name)) continue;
    const base = options.baseUrls[module.name];
    const built = module.create({
      settings: options,
      baseUrl: base ? { baseUrl: base } : {},
      client: (overrides = {}) => clientOf(module.name, module.policy, options, overrides),
    });
    if (built?.role === 'papers') result.sources.push(built.source);
    else if (built?.role === 'patents') result.patentSources.push(built.source);
    else if (built?.role === 'open-access') result.openAccess = built.source;
  }
  return result;
}

function clientOf(
  source: string,
  policy: SourcePolicy,
  options: UpstreamSourcesOptions,
  overrides: { headers?: Record<string, string>; minIntervalMs?: number },
): UpstreamClient {
  return new UpstreamClient({
    source,
    clock: options.clock,
    cache: options.cache,
    cacheTtlSeconds: policy.cacheTtlSeconds,
    minIntervalMs: overrides.minIntervalMs ?? policy.minIntervalMs,
    timeoutMs: options.sourceTimeoutMs,
    // A search should not sit in a polite source's queue: past 1 s the source is reported skipped.
    maxQueueMs: Math.min(1000, options.sourceTimeoutMs / 2),
    breaker: { cooldownMs: options.breakerCooldownMs },
    rateGates: options.rateGates,
    breakers: options.breakers,
    headers: { 'user-agent': userAgent(options.contactEmail), ...overrides.headers },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
