import type { Logger } from '../../platform/logger.js';
import type { Cache } from '../../ports/cache.js';
import type { CircuitBreakers } from '../../ports/circuit-breaker.js';
import type { Clock } from '../../ports/clock.js';
import type { PaperSource } from '../../ports/paper-source.js';
import type { PatentSource } from '../../ports/patent-source.js';
import type { RateGates } from '../../ports/rate-gate.js';
import { ArxivSource } from './arxiv/arxiv-source.js';
import { CrossrefSource } from './crossref/crossref-source.js';
import { EuropePmcSource } from './europepmc/europepmc-source.js';
import { OpenAlexSource } from './openalex/openalex-source.js';
import { PatentsViewSource } from './patentsview/patentsview-source.js';
import { PubmedSource } from './pubmed/pubmed-source.js';
import { SemanticScholarSource } from './semantic-scholar/semantic-scholar-source.js';
import { userAgent } from './shared/records.js';
import { type FetchFunction, UpstreamClient } from './shared/upstream-client.js';
import { UnpaywallSource } from './unpaywall/unpaywall-source.js';

/**
 * Politeness and caching per source (docs/decisions/0005): minimum spacing between requests and
 * how long answers are cached. Crossref and PubMed records rarely change, so they keep longest.
 */
export const sourcePolicies: Record<string, { minIntervalMs: number; cacheTtlSeconds: number }> = {
  openalex: { minIntervalMs: 100, cacheTtlSeconds: 6 * 3600 },
  semantic_scholar: { minIntervalMs: 1000, cacheTtlSeconds: 6 * 3600 },
  arxiv: { minIntervalMs: 3000, cacheTtlSeconds: 6 * 3600 },
  crossref: { minIntervalMs: 100, cacheTtlSeconds: 24 * 3600 },
  europepmc: { minIntervalMs: 100, cacheTtlSeconds: 12 * 3600 },
  pubmed: { minIntervalMs: 334, cacheTtlSeconds: 7 * 24 * 3600 },
  unpaywall: { minIntervalMs: 100, cacheTtlSeconds: 24 * 3600 },
  patentsview: { minIntervalMs: 1400, cacheTtlSeconds: 24 * 3600 },
};

/** The values of the `sources` config section this factory needs (kept free of the config module). */
export interface UpstreamSourcesOptions {
  /** Source names to construct (already resolved from "all"). */
  enabled: readonly string[];
  contactEmail?: string | undefined;
  openAlexApiKey?: string | undefined;
  semanticScholarApiKey?: string | undefined;
  semanticScholarRequestsPerSecond: number;
  ncbiApiKey?: string | undefined;
  patentsViewApiKey?: string | undefined;
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

/** Builds the enabled source adapters, each with its own resilient client. */
export function createUpstreamSources(options: UpstreamSourcesOptions): UpstreamSources {
  const enabled = new Set(options.enabled);
  const email = options.contactEmail;
  const client = (source: string, headers: Record<string, string> = {}) => {
    const policy = sourcePolicies[source] ?? { minIntervalMs: 0, cacheTtlSeconds: 3600 };
    return new UpstreamClient({
      source,
      clock: options.clock,
      cache: options.cache,
      cacheTtlSeconds: policy.cacheTtlSeconds,
      minIntervalMs:
        source === 'semantic_scholar'
          ? Math.round(1000 / options.semanticScholarRequestsPerSecond)
          : source === 'pubmed' && options.ncbiApiKey
            ? 100
            : policy.minIntervalMs,
      timeoutMs: options.sourceTimeoutMs,
      // A search should not sit in a polite source's queue: past 1 s the source is reported skipped.
      maxQueueMs: Math.min(1000, options.sourceTimeoutMs / 2),
      breaker: { cooldownMs: options.breakerCooldownMs },
      rateGates: options.rateGates,
      breakers: options.breakers,
      headers: { 'user-agent': userAgent(email), ...headers },
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  };
  const baseUrl = (name: string) => (options.baseUrls[name] ? { baseUrl: options.baseUrls[name] } : {});
  const sources: PaperSource[] = [];
  if (enabled.has('openalex')) {
    sources.push(
      new OpenAlexSource({
        client: client('openalex'),
        ...baseUrl('openalex'),
        ...(options.openAlexApiKey ? { apiKey: options.openAlexApiKey } : {}),
        ...(email ? { mailto: email } : {}),
      }),
    );
  }
  if (enabled.has('semantic_scholar')) {
    const headers: Record<string, string> = options.semanticScholarApiKey
      ? { 'x-api-key': options.semanticScholarApiKey }
      : {};
    sources.push(
      new SemanticScholarSource({
        client: client('semantic_scholar', headers),
        ...baseUrl('semantic_scholar'),
      }),
    );
  }
  if (enabled.has('crossref')) {
    sources.push(
      new CrossrefSource({
        client: client('crossref'),
        ...baseUrl('crossref'),
        ...(email ? { mailto: email } : {}),
      }),
    );
  }
  if (enabled.has('europepmc'))
    sources.push(new EuropePmcSource({ client: client('europepmc'), ...baseUrl('europepmc') }));
  if (enabled.has('pubmed')) {
    sources.push(
      new PubmedSource({
        client: client('pubmed'),
        ...baseUrl('pubmed'),
        ...(email ? { email } : {}),
        ...(options.ncbiApiKey ? { apiKey: options.ncbiApiKey } : {}),
      }),
    );
  }
  if (enabled.has('arxiv')) sources.push(new ArxivSource({ client: client('arxiv'), ...baseUrl('arxiv') }));
  const result: UpstreamSources = { sources, patentSources: [] };
  if (enabled.has('unpaywall') && email) {
    result.openAccess = new UnpaywallSource({ client: client('unpaywall'), email, ...baseUrl('unpaywall') });
  }
  if (enabled.has('patentsview') && options.patentsViewApiKey) {
    result.patentSources.push(
      new PatentsViewSource({
        client: client('patentsview', { 'x-api-key': options.patentsViewApiKey }),
        ...baseUrl('patentsview'),
      }),
    );
  }
  return result;
}
