import { isAppError, notFound } from '../../domain/errors.js';
import type { IdentifierType, PaperIdentifier } from '../../domain/identifiers.js';
import { normalizeIdentifier } from '../../domain/identifiers.js';
import { emptyPaper, identityKeys, type Paper } from '../../domain/paper.js';
import type { SourceReport } from '../../domain/search.js';
import type { Cache } from '../../ports/cache.js';
import type { PaperSource } from '../../ports/paper-source.js';
import { type HintVocabulary, restHints } from '../hint-vocabulary.js';
import type { LibraryNeighbourhood } from '../references/citation-graph.js';
import type { HintedCallOptions, PaperSearch } from '../services.js';
import { fanOut } from './fan-out.js';
import type { Candidate } from './paper-merge.js';
import { sameTitle } from './paper-merge.js';
import type { PaperResolver } from './paper-resolver.js';
import { fuse } from './rank-fusion.js';
import { type SourceMonitor, sourcesHint } from './source-monitor.js';

/** A paper with the papers around it (ScholarAI's "literature map"). */
export interface LiteratureMap {
  paper: Paper;
  /** Papers it cites. */
  references: Paper[];
  /** Papers citing it. */
  citations: Paper[];
  /** Papers the sources (or, offline, the local index) consider related. */
  related: Paper[];
  hint: string;
  sources: SourceReport[];
}

type Relation = 'references' | 'citations' | 'related';
const relations: Relation[] = ['references', 'citations', 'related'];

/** The tenant's own citation links: what a stored PDF cites, which stored PDFs cite a paper. */
export interface LibraryCitations {
  around(
    tenantId: string,
    identifier: PaperIdentifier,
    record: Paper | null,
    options?: { signal?: AbortSignal },
  ): Promise<LibraryNeighbourhood | null>;
}

export interface LiteratureMapOptions {
  resolver: PaperResolver;
  sources: readonly PaperSource[];
  local: PaperSearch;
  cache: Cache;
  monitor?: SourceMonitor;
  deadlineMs?: number;
  sourceTimeoutMs?: number;
  ttlSeconds?: number;
}

/**
 * References, citations and related papers of one paper, gathered from every source that offers
 * them (Semantic Scholar, OpenAlex) in parallel, de-duplicated across sources; related papers also
 * come from the local index (a title search), which is all there is offline.
 */
export class LiteratureMapService {
  private library: LibraryCitations | null = null;

  constructor(private readonly options: LiteratureMapOptions) {}

  /** Adds the links of the caller's stored PDFs to maps asked with a `tenantId` (decision 0031). */
  useLibrary(library: LibraryCitations): void {
    this.library = library;
  }

  /**
   * The map from the sources (cached, shared by every tenant); with `tenantId`, the references of
   * the caller's stored PDF and the caller's stored PDFs citing the paper come first (not cached:
   * they are the tenant's). A paper only the tenant's PDFs know is mapped from them alone.
   */
  async map(
    identifier: PaperIdentifier,
    options: HintedCallOptions & { limit?: number; tenantId?: string } = {},
  ): Promise<LiteratureMap> {
    const library = options.tenantId ? this.library : null;
    if (!library || !options.tenantId) return this.upstreamMap(identifier, options);
    let upstream: LiteratureMap | null = null;
    let missing: unknown = null;
    try {
      upstream = await this.upstreamMap(identifier, { ...options, hints: restHints });
    } catch (error) {
      if (!isAppError(error) || error.code !== 'not_found') throw error;
      missing = error;
    }
    const own = await library.around(options.tenantId, identifier, upstream?.paper ?? null, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const hints = options.hints ?? restHints;
    if (!own) {
      if (!upstream) throw missing;
      return hints === restHints
        ? upstream
        : { ...upstream, hint: mapHint(upstream, upstream.sources, hints) };
    }
    return withLibrary(upstream, own, identifier, options.limit ?? 10, hints);
  }

  private async upstreamMap(
    identifier: PaperIdentifier,
    options: HintedCallOptions & { limit?: number } = {},
  ): Promise<LiteratureMap> {
    const limit = options.limit ?? 10;
    const hints = options.hints ?? restHints;
    const key = `literature-map:v2:${identifier.type}:${identifier.value}:${limit}`;
    const cached = await this.options.cache.get<LiteratureMap>(key);
    // The cached map is shared by every surface; its hint is phrased anew for the caller's.
    if (cached)
      return hints === restHints ? cached : { ...cached, hint: mapHint(cached, cached.sources, hints) };
    const resolution = await this.options.resolver.resolve(identifier, options);
    const paper = resolution.paper;
    if (!paper) {
      throw notFound(`No index or source knows ${identifier.type}:${identifier.value}`, 'paper_id');
    }
    const calls = this.options.sources.flatMap((source) => {
      const sourceIdentifier = identifierFor(paper, identifier, source.lookupTypes);
      if (!sourceIdentifier) return [];
      return relations.flatMap((relation) => {
        const method = source[relation]?.bind(source);
        if (!method) return [];
        return [
          {
            name: `${source.name}.${relation}`,
            run: (signal: AbortSignal) => method(sourceIdentifier, { limit, signal }),
          },
        ];
      });
    });
    const titleWords = relatedQuery(paper.title);
    const related = titleWords
      ? [
          {
            name: 'index.related',
            local: true,
            // The title's words as ranking words (`query`: any of them matches, BM25 orders), not
            // as keywords, which every match must contain: only the paper itself has them all.
            run: async (signal: AbortSignal) =>
              (
                await this.options.local.searchPapers(
                  {
                    query: titleWords,
                    sort: 'relevance',
                    peerReviewedOnly: false,
                    offset: 0,
                    limit: limit + 2,
                  },
                  { signal },
                )
              ).papers,
          },
        ]
      : [];
    const own = new Set(identityKeys(paper));
    const outcomes = await fanOut(
      [...calls, ...related],
      {
        deadlineMs: this.options.deadlineMs ?? 8_000,
        sourceTimeoutMs: this.options.sourceTimeoutMs ?? 5_000,
      },
      options.signal,
      (papers) => papers.length,
    );
    const reports = outcomes.map((outcome) => outcome.report);
    this.options.monitor?.record(
      'graph',
      reports.filter((report) => !report.source.startsWith('index')),
    );
    const lists = Object.fromEntries(
      relations.map((relation) => {
        const candidates: Candidate[] = outcomes.flatMap(({ call, value }) =>
          call.name.endsWith(`.${relation}`)
            ? (value ?? []).map((found, index) => ({
                paper: found,
                list: call.name.split('.')[0] as string,
                rank: index + 1,
              }))
            : [],
        );
        const fused = fuse(candidates)
          .map((entry) => entry.paper)
          .filter((found) => !sameTitle(found, paper) && !identityKeys(found).some((key) => own.has(key)));
        return [relation, fused.slice(0, limit)];
      }),
    ) as Record<Relation, Paper[]>;
    const result: LiteratureMap = {
      paper,
      ...lists,
      hint: mapHint(lists, reports, restHints),
      sources: [...resolution.sources.filter((report) => report.source !== 'index'), ...reports],
    };
    const degraded = reports.some((report) => report.status !== 'ok');
    await this.options.cache.set(key, result, degraded ? 60 : (this.options.ttlSeconds ?? 86_400));
    return hints === restHints ? result : { ...result, hint: mapHint(lists, reports, hints) };
  }
}

/**
 * The sources' map with the tenant's own links first: the references of the stored PDF (linked
 * records, then the sources', then its unlinked entries) and the stored PDFs citing the paper.
 */
function withLibrary(
  upstream: LiteratureMap | null,
  own: LibraryNeighbourhood,
  identifier: PaperIdentifier,
  limit: number,
  hints: HintVocabulary,
): LiteratureMap {
  const paper = upstream?.paper ?? own.stored ?? emptyPaper(`${identifier.type}:${identifier.value}`);
  const linked = own.references.slice(0, own.linkedReferences);
  const unlinked = own.references.slice(own.linkedReferences);
  const merge = (...lists: Paper[][]) => {
    const kept: Paper[] = [];
    const keys = new Set<string>(identityKeys(paper));
    for (const found of lists.flat()) {
      const foundKeys = identityKeys(found);
      if (sameTitle(found, paper) || foundKeys.some((key) => keys.has(key))) continue;
      if (kept.some((other) => sameTitle(other, found))) continue;
      for (const key of foundKeys) keys.add(key);
      kept.push(found);
    }
    return kept.slice(0, limit);
  };
  const lists: Record<Relation, Paper[]> = {
    references: merge(linked, upstream?.references ?? [], unlinked),
    citations: merge(own.citations, upstream?.citations ?? []),
    related: upstream?.related ?? [],
  };
  const sources: SourceReport[] = [
    ...(upstream?.sources ?? []),
    { source: 'library', status: 'ok', count: own.references.length + own.citations.length },
  ];
  const paperId = `${identifier.type}:${identifier.value}`;
  const from = [
    own.stored
      ? `references are read from the reference list of your stored PDF (${own.references.length} entries, ${own.linkedReferences} linked to records of the local index${upstream?.references.length ? ', merged with the sources’' : ''})`
      : null,
    own.citations.length > 0
      ? `${own.citations.length} of your stored PDFs cite${own.citations.length === 1 ? 's' : ''} it (their citing sentences: ${hints.citationContexts(paperId)})`
      : null,
  ].filter(Boolean);
  const hint = `From your own PDFs: ${from.join('; ')}. ${mapHint(lists, sources, hints)}`;
  return { paper, ...lists, hint, sources };
}

/**
 * The title as ranking words for the local index: quotes dropped (a quoted part of a title would
 * become a phrase every match must contain) and hyphenated words split ("Prompt-tuning" also ranks
 * papers on prompts), at most 32 words; undefined when it has no words.
 */
function relatedQuery(title: string | null | undefined): string | undefined {
  const words = (title ?? '')
    .replace(/["“”„\\\-\u2010\u2011]/g, ' ')
    .match(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu);
  return words && words.length > 0 ? words.slice(0, 32).join(' ') : undefined;
}

/** The identifier to ask a source with: the one given when the source understands it, else one the record has. */
function identifierFor(
  paper: Paper,
  given: PaperIdentifier,
  types: readonly IdentifierType[],
): PaperIdentifier | null {
  if (types.includes(given.type)) return given;
  const ids = paper.identifiers ?? {};
  const known: Array<[IdentifierType, string | null | undefined]> = [
    ['DOI', paper.doi ?? ids.doi],
    ['SS_ID', paper.ss_id ?? ids.ss_id],
    ['ARXIV', ids.arxiv],
    ['PMID', ids.pmid],
    ['PMCID', ids.pmcid],
    ['MAG', ids.mag],
    ['ACL', ids.acl],
  ];
  for (const [type, raw] of known) {
    if (!raw || !types.includes(type)) continue;
    const value = normalizeIdentifier(type, raw);
    if (value) return { type, value };
  }
  return null;
}

function mapHint(
  lists: Record<Relation, Paper[]>,
  reports: readonly SourceReport[],
  hints: HintVocabulary,
): string {
  const counts = `${lists.references.length} references, ${lists.citations.length} citing papers, ${lists.related.length} related papers.`;
  const next = `Open any of them with ${hints.paper('DOI:<doi>')} (or SS_ID:, ARXIV:, PMID:), or map it in turn with ${hints.literatureMap('DOI:<doi>')}.`;
  const none =
    lists.references.length + lists.citations.length === 0
      ? ' No citation graph was available (no upstream source enabled or answering); related papers come from the local index.'
      : '';
  return `${counts}${none} ${next} ${sourcesHint(reports)}`.trim();
}
