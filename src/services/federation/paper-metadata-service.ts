import type { PaperIdentifier } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { SearchRequest, SearchResult } from '../../domain/search.js';
import type { Cache } from '../../ports/cache.js';
import type { FullTextSource } from '../../ports/full-text-source.js';
import type { PaperSource } from '../../ports/paper-source.js';
import type { PatentSource } from '../../ports/patent-source.js';
import type { HintedCallOptions, PaperLookup, PaperSearch } from '../services.js';
import { FederatedSearch, type FederationSettings } from './federated-search.js';
import { type LibraryCitations, type LiteratureMap, LiteratureMapService } from './literature-map.js';
import { PaperResolver, type Resolution } from './paper-resolver.js';
import type { SourceMonitor } from './source-monitor.js';

/**
 * Metadata by identifier and the literature map: what `/api/paper`, `/api/literature_map`, the MCP
 * tools and `add_to_project` (as its `PaperLookup`) use.
 */
export class PaperMetadataService implements PaperLookup {
  constructor(
    private readonly resolver: PaperResolver,
    private readonly literature: LiteratureMapService,
  ) {}

  findByIdentifier(
    identifier: PaperIdentifier,
    options: { signal?: AbortSignal } = {},
  ): Promise<Paper | null> {
    return this.resolver.findByIdentifier(identifier, options);
  }

  resolve(identifier: PaperIdentifier, options: { signal?: AbortSignal } = {}): Promise<Resolution> {
    return this.resolver.resolve(identifier, options);
  }

  map(
    identifier: PaperIdentifier,
    options: HintedCallOptions & { limit?: number; tenantId?: string } = {},
  ): Promise<LiteratureMap> {
    return this.literature.map(identifier, options);
  }

  /** Maps with a `tenantId` also read the tenant's stored PDFs' reference lists (decision 0031). */
  useLibrary(library: LibraryCitations): void {
    this.literature.useLibrary(library);
  }
}

/** A local index with nothing in it: the stand-in until the index's search service is wired. */
export const emptyLocalIndex: PaperSearch & PaperLookup = {
  async searchPapers(request: SearchRequest): Promise<SearchResult> {
    return {
      papers: [],
      total: 0,
      nextOffset: null,
      hint: `Nothing indexed locally at offset ${request.offset}.`,
    };
  },
  async searchPatents(request: SearchRequest): Promise<SearchResult> {
    return {
      papers: [],
      total: 0,
      nextOffset: null,
      hint: `Nothing indexed locally at offset ${request.offset}.`,
    };
  },
  async findByIdentifier(): Promise<Paper | null> {
    return null;
  },
};

export interface FederationDependencies {
  /** The local index (search and lookup). */
  local: PaperSearch & PaperLookup;
  /** Enabled sources, in preference order. */
  sources: readonly PaperSource[];
  patentSources: readonly PatentSource[];
  /** Where open PDFs of DOIs are found (Unpaywall), when enabled. */
  openAccess?: PaperSource;
  cache: Cache;
  monitor: SourceMonitor;
  settings: Partial<FederationSettings>;
  /** Keeps records the user resolved (added or opened) in the local index. */
  remember?: (paper: Paper) => Promise<void>;
}

/**
 * The federation capability from ports: the search to serve (the local search itself when no
 * source is enabled: no overhead) and the metadata service.
 */
export function createFederation(dependencies: FederationDependencies): {
  search: PaperSearch;
  papers: PaperMetadataService;
} {
  const { local, sources, patentSources, cache, monitor, settings } = dependencies;
  const lookupSources = sources.filter((source) => source.lookup && source !== dependencies.openAccess);
  const resolver = new PaperResolver({
    local,
    sources: lookupSources,
    cache,
    monitor,
    ...(dependencies.openAccess ? { openAccess: dependencies.openAccess } : {}),
    ...(dependencies.remember ? { remember: dependencies.remember } : {}),
    ...(settings.deadlineMs ? { deadlineMs: settings.deadlineMs } : {}),
    ...(settings.sourceTimeoutMs ? { sourceTimeoutMs: settings.sourceTimeoutMs } : {}),
  });
  const literature = new LiteratureMapService({
    resolver,
    sources: lookupSources,
    local,
    cache,
    monitor,
    ...(settings.deadlineMs ? { deadlineMs: settings.deadlineMs } : {}),
    ...(settings.sourceTimeoutMs ? { sourceTimeoutMs: settings.sourceTimeoutMs } : {}),
  });
  const searchable = sources.filter((source) => source.search);
  const search =
    searchable.length === 0 && patentSources.length === 0
      ? local
      : new FederatedSearch({ local, sources: searchable, patentSources, cache, monitor, settings });
  return { search, papers: new PaperMetadataService(resolver, literature) };
}

/** Full-text sources among the enabled sources (Europe PMC's JATS), for the documents capability. */
export function fullTextSourcesOf(sources: readonly PaperSource[]): FullTextSource[] {
  return sources.filter(
    (source): source is PaperSource & FullTextSource => 'keyFor' in source && 'fetch' in source,
  );
}
