import { AppError, UpstreamError } from '../../domain/errors.js';
import type { Paper } from '../../domain/paper.js';
import type { SearchRequest, SearchResult, SourceReport } from '../../domain/search.js';
import { sha256Hex } from '../../platform/ids.js';
import type { Cache } from '../../ports/cache.js';
import type { PaperSource, SourceQuery } from '../../ports/paper-source.js';
import type { PatentSource } from '../../ports/patent-source.js';
import { emptyResultHint } from '../search/empty-result-hint.js';
import { parseSearchText } from '../search-query.js';
import { shortenedNote, validateRequest } from '../search-service.js';
import type { HintedCallOptions, PaperSearch } from '../services.js';
import { fanOut } from './fan-out.js';
import type { Candidate } from './paper-merge.js';
import { defaultFusionWeights, fuse } from './rank-fusion.js';
import { applyFilters, applySort } from './result-filters.js';
import { type FederatedOperation, type SourceMonitor, sourcesHint } from './source-monitor.js';

export interface FederationSettings {
  /** Overall time budget of one federated call; unfinished sources are reported as `timeout` (default 6 s). */
  deadlineMs: number;
  /** Time budget of one source within it (default 4 s). */
  sourceTimeoutMs: number;
  /** Records asked from each list (local index and every source) per query (default 40, max 100). */
  depth: number;
  /** How long a merged list is kept for paging (default 600 s), and when a source failed (60 s). */
  listTtlSeconds: number;
  degradedListTtlSeconds: number;
  /** Fusion weights by list name, over the index's and the sources' own (`fusionWeight`). */
  weights: Record<string, number>;
}

export const defaultFederationSettings: FederationSettings = {
  deadlineMs: 6_000,
  sourceTimeoutMs: 4_000,
  depth: 40,
  listTtlSeconds: 600,
  degradedListTtlSeconds: 60,
  weights: {},
};

export interface FederatedSearchOptions {
  local: PaperSearch;
  sources: readonly PaperSource[];
  patentSources: readonly PatentSource[];
  cache: Cache;
  monitor?: SourceMonitor;
  settings?: Partial<FederationSettings>;
}

interface ListPage {
  papers: Paper[];
  total: number | null;
  scores?: number[];
}

interface Provider {
  name: string;
  local: boolean;
  run(signal: AbortSignal): Promise<ListPage>;
}

/** The merged, filtered, sorted list of one query, cached so that every page comes from it. */
interface MergedList {
  papers: Paper[];
  reports: SourceReport[];
  /** How many local results went into the list, and how many the index has in all. */
  localFetched: number;
  localTotal: number;
  /** The local index holds no record of the kind searched (its page said so). */
  localEmpty: boolean;
}

/**
 * Paper and patent search across the local index and the enabled upstream sources: all asked in
 * parallel (per-source timeout, overall deadline), records de-duplicated and merged, ranked in one
 * list by weighted reciprocal-rank fusion, filtered and sorted, then paged from a cached copy of
 * that list so that page 2 follows page 1. Past the merged list, paging continues in the local
 * index. A source that fails, times out or is skipped is reported in `sources` and the hint; the
 * request fails only when nothing at all answered. A mistake in the request is not a failed source:
 * the request is checked once before any source is asked, and a request the local index refuses
 * (`invalid_request`) is refused as a whole, whatever the upstream sources answered.
 */
export class FederatedSearch implements PaperSearch {
  private readonly settings: FederationSettings;
  /** Fusion weight per list: the index, each source as it declares, then the settings. */
  private readonly weights: Record<string, number>;

  constructor(private readonly options: FederatedSearchOptions) {
    this.settings = { ...defaultFederationSettings, ...options.settings };
    const declared = [...options.sources, ...options.patentSources].flatMap((source) =>
      source.fusionWeight === undefined ? [] : [[source.name, source.fusionWeight] as const],
    );
    this.weights = { ...defaultFusionWeights, ...Object.fromEntries(declared), ...this.settings.weights };
  }

  async searchPapers(request: SearchRequest, options: HintedCallOptions = {}): Promise<SearchResult> {
    validateRequest(request);
    const query = this.sourceQuery(request);
    if (query.text.length === 0) return this.options.local.searchPapers(request, options);
    const providers: Provider[] = [
      {
        name: 'index',
        local: true,
        run: (signal) =>
          this.options.local.searchPapers({ ...request, offset: 0, limit: this.depth() }, { signal }),
      },
      ...this.options.sources.flatMap((source) =>
        source.search
          ? [
              {
                name: source.name,
                local: false,
                run: (signal: AbortSignal) => source.search?.(query, { signal }) as Promise<ListPage>,
              },
            ]
          : [],
      ),
    ];
    return this.search('search', request, providers, options.signal, (offset, limit, signal) =>
      this.options.local.searchPapers({ ...request, offset, limit }, { signal }),
    );
  }

  async searchPatents(request: SearchRequest, options: HintedCallOptions = {}): Promise<SearchResult> {
    validateRequest(request);
    const query = this.sourceQuery(request);
    // No patent source enabled (or nothing to ask one): the local patent index alone, no overhead.
    if (this.options.patentSources.length === 0 || query.text.length === 0) {
      return this.options.local.searchPatents(request, options);
    }
    const providers: Provider[] = [
      {
        name: 'index',
        local: true,
        run: (signal) =>
          this.options.local.searchPatents({ ...request, offset: 0, limit: this.depth() }, { signal }),
      },
      ...this.options.patentSources.map((source) => ({
        name: source.name,
        local: false,
        run: (signal: AbortSignal) => source.searchPatents(query, { signal }),
      })),
    ];
    return this.search('patents', request, providers, options.signal, (offset, limit, signal) =>
      this.options.local.searchPatents({ ...request, offset, limit }, { signal }),
    );
  }

  private depth(): number {
    return Math.min(100, Math.max(1, this.settings.depth));
  }

  private sourceQuery(request: SearchRequest): SourceQuery {
    return {
      text: (request.keywords ?? request.query ?? '').trim(),
      sort: request.sort,
      peerReviewedOnly: request.peerReviewedOnly,
      limit: this.depth(),
      ...(request.startYear === undefined ? {} : { startYear: request.startYear }),
      ...(request.endYear === undefined ? {} : { endYear: request.endYear }),
    };
  }

  private async search(
    operation: FederatedOperation,
    request: SearchRequest,
    providers: Provider[],
    signal: AbortSignal | undefined,
    localPage: (offset: number, limit: number, signal?: AbortSignal) => Promise<SearchResult>,
  ): Promise<SearchResult> {
    const key = `federated:v1:${operation}:${sha256Hex(
      JSON.stringify([
        request.keywords ?? null,
        request.query ?? null,
        request.sort,
        request.peerReviewedOnly,
        request.startYear ?? null,
        request.endYear ?? null,
        providers.map((provider) => provider.name),
      ]),
    )}`;
    let merged = await this.options.cache.get<MergedList>(key);
    const fromCache = merged !== undefined;
    if (!merged) {
      merged = await this.merge(request, providers, signal);
      this.options.monitor?.record(operation, merged.reports);
      const degraded = merged.reports.some((report) => report.status !== 'ok');
      await this.options.cache.set(
        key,
        merged,
        degraded ? this.settings.degradedListTtlSeconds : this.settings.listTtlSeconds,
      );
    }
    const extraLocal = Math.max(0, merged.localTotal - merged.localFetched);
    const total = merged.papers.length + extraLocal;
    let papers = merged.papers.slice(request.offset, request.offset + request.limit);
    if (papers.length < request.limit && extraLocal > 0 && request.offset + papers.length < total) {
      // Beyond the merged window the local index goes on where its share of the window ended.
      const localOffset = merged.localFetched + Math.max(0, request.offset - merged.papers.length);
      const more = await localPage(localOffset, request.limit - papers.length, signal);
      papers = [...papers, ...more.papers];
    }
    const nextOffset =
      request.offset + papers.length < total && papers.length > 0 ? request.offset + papers.length : null;
    const kind = operation === 'patents' ? 'patent' : 'paper';
    return {
      papers,
      total,
      nextOffset,
      hint: this.hint(request, papers.length, total, nextOffset, merged, fromCache, kind),
      sources: merged.reports,
      indexEmpty: merged.localEmpty,
    };
  }

  private async merge(
    request: SearchRequest,
    providers: Provider[],
    signal: AbortSignal | undefined,
  ): Promise<MergedList> {
    const outcomes = (
      await fanOut(providers, this.settings, signal, (page: ListPage) => page.papers.length)
    ).map(({ call, value, report, error }) => ({ provider: call as Provider, value, report, error }));
    const local = outcomes.find((outcome) => outcome.provider.local);
    if (signal?.aborted) throw signal.reason;
    // The index refused the request itself (e.g. no searchable words): upstream answers to a
    // request the user must fix would hide the mistake behind a 200.
    if (isRequestMistake(local?.error)) throw local.error;
    if (outcomes.every((outcome) => outcome.value === null)) {
      const reason = local?.report.message ?? 'no source answered';
      throw new UpstreamError('federation', `Search failed: the index and every source failed (${reason})`);
    }
    const candidates: Candidate[] = outcomes.flatMap(({ provider, value }) =>
      (value?.papers ?? []).map((paper, index) => {
        const score = provider.local ? value?.scores?.[index] : undefined;
        return { paper, list: provider.name, rank: index + 1, ...(score === undefined ? {} : { score }) };
      }),
    );
    const fused = fuse(candidates, this.weights).map((entry) => entry.paper);
    const localValue = local?.value;
    return {
      papers: applySort(applyFilters(fused, request), request.sort),
      reports: outcomes.map((outcome) => outcome.report),
      localFetched: localValue?.papers.length ?? 0,
      localTotal: localValue?.total ?? localValue?.papers.length ?? 0,
      localEmpty: (localValue as SearchResult | null | undefined)?.indexEmpty === true,
    };
  }

  private hint(
    request: SearchRequest,
    shown: number,
    total: number,
    nextOffset: number | null,
    merged: MergedList,
    fromCache: boolean,
    kind: 'paper' | 'patent',
  ): string {
    const note = shortenedNote(parseSearchText(request.keywords), parseSearchText(request.query));
    const bare =
      shown === 0
        ? emptyResultHint({
            kind,
            request,
            indexEmpty: merged.localEmpty,
            sources: merged.reports,
            total,
          })
        : this.pageHint(request, shown, total, nextOffset, merged.reports, fromCache);
    return note ? `${note} ${bare}` : bare;
  }

  private pageHint(
    request: SearchRequest,
    shown: number,
    total: number,
    nextOffset: number | null,
    reports: SourceReport[],
    fromCache: boolean,
  ): string {
    const sources = sourcesHint(reports);
    const paging =
      nextOffset === null
        ? 'This is the last page.'
        : `More results: repeat the search with offset=${nextOffset}.`;
    const cached = fromCache ? ' (merged list reused for consistent paging)' : '';
    return `Results ${request.offset + 1}–${request.offset + shown} of ${total}${cached}. ${paging} ${sources}`.trim();
  }
}

/** A request the local index refused as the user's mistake (400), not a failure of the index. */
function isRequestMistake(error: unknown): error is AppError {
  return error instanceof AppError && !(error instanceof UpstreamError) && error.code === 'invalid_request';
}
