import { createUpstreamSources, missingRequirement } from '../adapters/sources/create-upstream-sources.js';
import { type Config, ConfigError } from '../config/load-config.js';
import { sourceNames } from '../config/sections/sources.js';
import type { Paper } from '../domain/paper.js';
import type { Logger } from '../platform/logger.js';
import type { Cache } from '../ports/cache.js';
import type { CircuitBreakers } from '../ports/circuit-breaker.js';
import type { Clock } from '../ports/clock.js';
import type { RateGates } from '../ports/rate-gate.js';
import { createFederation, fullTextSourcesOf } from '../services/federation/paper-metadata-service.js';
import { SourceMonitor } from '../services/federation/source-monitor.js';
import type { PaperLookup, PaperSearch } from '../services/services.js';

/**
 * Upstream sources and federation (docs/decisions/0008, 0045). By default the open, keyless
 * sources; with ALEXANDRIA_SOURCES=none no source is built, nothing leaves the machine, and `search`
 * is the local search itself. A source named explicitly without what it needs fails fast; with
 * "all" it is left out. `local` is the index's search; papers found upstream are `remember`ed in it;
 * `fullTextSources` feed the documents capability.
 */
export function createFederationServices(
  settings: Config['sources'],
  logger: Logger,
  dependencies: {
    cache: Cache;
    rateGates: RateGates;
    breakers: CircuitBreakers;
    clock: Clock;
    local: PaperSearch & PaperLookup;
    remember: (paper: Paper) => Promise<void>;
  },
) {
  const all = settings.enabled.includes('all');
  const problems: string[] = [];
  const enabled = (all ? [...sourceNames] : settings.enabled).filter((name) => {
    const missing = missingRequirement(name, settings);
    if (!missing) return true;
    if (all) logger.info({ source: name }, `source left out: ${missing} is not set`);
    else problems.push(`${missing}: required when ALEXANDRIA_SOURCES includes ${name}`);
    return false;
  });
  if (problems.length > 0) throw new ConfigError(problems);
  const { cache, clock } = dependencies;
  const upstream = createUpstreamSources({
    enabled,
    contactEmail: settings.contactEmail,
    openAlexApiKey: settings.openAlexApiKey,
    semanticScholarApiKey: settings.semanticScholarApiKey,
    semanticScholarRequestsPerSecond: settings.semanticScholarRequestsPerSecond,
    ncbiApiKey: settings.ncbiApiKey,
    patentsViewApiKey: settings.patentsViewApiKey,
    sourceTimeoutMs: settings.sourceTimeoutMs,
    breakerCooldownMs: settings.breakerCooldownMs,
    baseUrls: Object.fromEntries(settings.sourceUrls),
    cache,
    rateGates: dependencies.rateGates,
    breakers: dependencies.breakers,
    clock,
    logger,
  });
  if (enabled.length > 0) logger.info({ sources: enabled }, 'federating upstream sources');
  else logger.info({ sources: [] }, 'upstream sources off: every request stays on this machine');
  const monitor = new SourceMonitor(logger);
  const federation = createFederation({
    local: dependencies.local,
    sources: upstream.sources,
    patentSources: upstream.patentSources,
    openAccess: upstream.openAccess,
    cache,
    monitor,
    settings: {
      deadlineMs: settings.deadlineMs,
      sourceTimeoutMs: settings.sourceTimeoutMs,
      depth: settings.depth,
    },
    remember: dependencies.remember,
  });
  return { ...federation, monitor, enabled, fullTextSources: fullTextSourcesOf(upstream.sources) };
}
