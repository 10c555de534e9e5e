import { describe, expect, it } from 'vitest';
import { defaultSourceNames, sourceNames } from '../../config/sections/sources.js';
import { systemClock } from '../../ports/clock.js';
import { MemoryCache } from '../memory/memory-cache.js';
import { createUpstreamSources, missingRequirement, sourcePolicies } from './create-upstream-sources.js';
import { sourceModules } from './source-modules.js';

const base = {
  semanticScholarRequestsPerSecond: 1,
  sourceTimeoutMs: 4000,
  breakerCooldownMs: 30_000,
  baseUrls: {},
  cache: new MemoryCache(),
  clock: systemClock,
};

describe('source modules', () => {
  it('are the sources ALEXANDRIA_SOURCES names, once each', () => {
    const names = sourceModules.map((module) => module.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...sourceNames].sort());
    for (const module of sourceModules) {
      expect(sourcePolicies[module.name]).toBe(module.policy);
      expect(module.policy.minIntervalMs).toBeGreaterThan(0);
    }
  });

  it('default to sources that need nothing set: every default one is built from no settings at all', () => {
    for (const name of defaultSourceNames) expect(missingRequirement(name, base), name).toBeUndefined();
    const built = createUpstreamSources({ ...base, enabled: [...defaultSourceNames] });
    expect([...built.sources.map((source) => source.name)].sort()).toEqual([...defaultSourceNames].sort());
    // Searched by default: every one but PubMed, which answers look-ups by PMID (Europe PMC searches its records).
    expect(built.sources.filter((source) => source.search).map((source) => source.name)).toEqual([
      'openalex',
      'crossref',
      'europepmc',
      'arxiv',
    ]);
  });

  it('build every enabled source in preference order, each with its fusion weight', () => {
    const built = createUpstreamSources({
      ...base,
      enabled: [...sourceNames],
      contactEmail: 'lab@example.org',
      patentsViewApiKey: 'key',
    });
    expect(built.sources.map((source) => source.name)).toEqual([
      'openalex',
      'semantic_scholar',
      'crossref',
      'europepmc',
      'pubmed',
      'arxiv',
    ]);
    expect(built.openAccess?.name).toBe('unpaywall');
    expect(built.patentSources.map((source) => source.name)).toEqual(['patentsview']);
    for (const source of [...built.sources, ...built.patentSources]) {
      expect(source.fusionWeight).toBeGreaterThan(0);
    }
  });

  it('leave out a source whose requirements are not met, and any not enabled', () => {
    const built = createUpstreamSources({ ...base, enabled: ['unpaywall', 'patentsview', 'arxiv'] });
    expect(built.sources.map((source) => source.name)).toEqual(['arxiv']);
    expect(built.openAccess).toBeUndefined();
    expect(built.patentSources).toEqual([]);
    expect(missingRequirement('unpaywall', base)).toBe('ALEXANDRIA_CONTACT_EMAIL');
    expect(missingRequirement('patentsview', base)).toBe('ALEXANDRIA_PATENTSVIEW_API_KEY');
    expect(missingRequirement('arxiv', base)).toBeUndefined();
    expect(missingRequirement('unpaywall', { ...base, contactEmail: 'lab@example.org' })).toBeUndefined();
  });
});
