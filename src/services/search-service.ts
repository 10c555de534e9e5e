import { createHash } from 'node:crypto';
import { invalid } from '../domain/errors.js';
import { identifierKey, type PaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { Cache } from '../ports/cache.js';
import type { IndexKind, IndexPage, IndexQuery, PaperIndex } from '../ports/paper-index.js';
import { type HintVocabulary, restHints } from './hint-vocabulary.js';
import { maxSearchWords, type ParsedText, parseSearchText, toClauses } from './search-query.js';
import type { HintedCallOptions, PaperLookup, PaperSearch } from './services.js';

export interface SearchServiceOptions {
  /** How long an identical search is answered from the cache, in seconds (0 = no caching). */
  cacheTtlSeconds: number;
}

/** Limits every caller (HTTP, MCP, agent) gets; the HTTP layer reports them per parameter. */
export const searchLimits = {
  maxLimit: 100,
  maxOffset: 10_000,
  minYear: 1000,
  maxYear: 2999,
  /** Characters of `keywords` or `query` (the HTTP schema's bound; MCP and the agent ask for less). */
  maxTextLength: 2000,
} as const;

/**
 * Search over the local index (papers and patents) and lookup by identifier.
 *
 * How `keywords` and `query` combine (docs/decisions, search ranking): every keyword word must appear
 * (stop words aside), the query's words rank the matches (BM25 over both), and a quoted phrase in
 * either parameter must appear as written. With only a query, any of its words matches and BM25
 * decides. When no paper has every keyword, the search is retried with the keywords as ranking
 * words too, and the hint says so. Identical searches are served from the cache for a short time.
 */
export class SearchService implements PaperSearch, PaperLookup {
  constructor(
    private readonly index: PaperIndex,
    private readonly cache: Cache,
    private readonly options: SearchServiceOptions,
  ) {}

  searchPapers(request: SearchRequest, options: HintedCallOptions = {}): Promise<SearchResult> {
    return this.search('paper', request, options.hints ?? restHints);
  }

  searchPatents(request: SearchRequest, options: HintedCallOptions = {}): Promise<SearchResult> {
    return this.search('patent', request, options.hints ?? restHints);
  }

  async findByIdentifier(identifier: PaperIdentifier): Promise<Paper | null> {
    const paper = await this.index.findByKeys([identifierKey(identifier)]);
    return paper ? presentRecord(paper) : null;
  }

  private async search(
    kind: IndexKind,
    request: SearchRequest,
    hints: HintVocabulary,
  ): Promise<SearchResult> {
    validateRequest(request);
    if (this.options.cacheTtlSeconds <= 0) return this.run(kind, request, hints);
    // Read before searching: an answer is stored under a version no newer than its data.
    const key = cacheKey(kind, request, await this.index.dataVersion(), hints.name);
    const hit = await this.cache.get<SearchResult>(key);
    if (hit !== undefined) return hit;
    const result = await this.run(kind, request, hints);
    await this.cache.set(key, result, this.options.cacheTtlSeconds);
    return result;
  }

  private async run(kind: IndexKind, request: SearchRequest, hints: HintVocabulary): Promise<SearchResult> {
    const keywordText = parseSearchText(request.keywords);
    const questionText = parseSearchText(request.query);
    const keywords = toClauses(keywordText);
    const question = toClauses(questionText);
    const phrases = [...keywords.phrases, ...question.phrases];
    if (phrases.length + keywords.words.length + question.words.length === 0) {
      const param = request.keywords?.trim() ? 'keywords' : 'query';
      throw invalid(param, `${param} has no searchable words (letters or digits)`);
    }
    const base: Omit<IndexQuery, 'must' | 'should'> = {
      kind,
      peerReviewedOnly: request.peerReviewedOnly,
      sort: request.sort,
      offset: request.offset,
      limit: request.limit,
      ...(request.startYear === undefined ? {} : { startYear: request.startYear }),
      ...(request.endYear === undefined ? {} : { endYear: request.endYear }),
    };
    const strict = { ...base, must: [...phrases, ...keywords.words], should: question.words };
    let page = await this.index.search(strict);
    let relaxed = false;
    if (page.total === 0 && keywords.words.length > 1) {
      page = await this.index.search({
        ...base,
        must: phrases,
        should: [...keywords.words, ...question.words],
      });
      relaxed = page.total > 0;
    }
    const shortened = shortenedNote(keywordText, questionText);
    return toResult(kind, request, page, { relaxed, keywords: keywordText.words, shortened, hints });
  }
}

/** Checks what every caller must respect; throws a 400 naming the parameter. */
export function validateRequest(request: SearchRequest): void {
  if (!request.keywords?.trim() && !request.query?.trim()) {
    throw invalid('query', 'Give keywords or query (or both): the search is empty');
  }
  for (const [param, text] of [
    ['keywords', request.keywords],
    ['query', request.query],
  ] as const) {
    const length = text?.trim().length ?? 0;
    if (length > searchLimits.maxTextLength) {
      throw invalid(
        param,
        `${param} must be at most ${searchLimits.maxTextLength} characters (got ${length})`,
      );
    }
  }
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > searchLimits.maxLimit) {
    throw invalid('limit', `limit must be an integer from 1 to ${searchLimits.maxLimit}`);
  }
  if (!Number.isInteger(request.offset) || request.offset < 0 || request.offset > searchLimits.maxOffset) {
    throw invalid('offset', `offset must be an integer from 0 to ${searchLimits.maxOffset}`);
  }
  for (const [param, year] of [
    ['start_year', request.startYear],
    ['end_year', request.endYear],
  ] as const) {
    if (
      year !== undefined &&
      (!Number.isInteger(year) || year < searchLimits.minYear || year > searchLimits.maxYear)
    ) {
      throw invalid(param, `${param} must be a four-digit year`);
    }
  }
  if (
    request.startYear !== undefined &&
    request.endYear !== undefined &&
    request.startYear > request.endYear
  ) {
    throw invalid('start_year', `start_year (${request.startYear}) is after end_year (${request.endYear})`);
  }
}

/**
 * The cache key of a search: the request, normalised, and the index's data version, which names the
 * index too, so that neither an answer from before the last ingest nor one from another replica's
 * index is ever served (the cache may be Redis, shared by every replica).
 */
function cacheKey(kind: IndexKind, request: SearchRequest, dataVersion: string, hints: string): string {
  const normalized = JSON.stringify([
    // The hint is phrased for one surface (`rest` keeps the keys of before vocabularies).
    ...(hints === restHints.name ? [] : [hints]),
    dataVersion,
    kind,
    request.keywords?.trim().toLowerCase() ?? '',
    request.query?.trim().toLowerCase() ?? '',
    request.sort,
    request.peerReviewedOnly,
    request.startYear ?? null,
    request.endYear ?? null,
    request.offset,
    request.limit,
  ]);
  return `search:v2:${createHash('sha256').update(normalized).digest('base64url')}`;
}

/**
 * What the hint says when a parameter had more words than a search uses, or null. Exported for the
 * federated search, whose hint replaces the local one.
 */
export function shortenedNote(keywords: ParsedText, query: ParsedText): string | null {
  const parts: string[] = [];
  if (keywords.omitted > 0) parts.push(`keywords (${keywords.omitted} left out)`);
  if (query.omitted > 0) parts.push(`query (${query.omitted} left out)`);
  if (parts.length === 0) return null;
  return `Only the first ${maxSearchWords} words of ${parts.join(' and ')} were searched, phrase words included.`;
}

interface HintContext {
  relaxed: boolean;
  keywords: string[];
  /** The note on words left out of a long parameter, or null. */
  shortened: string | null;
  hints: HintVocabulary;
}

function toResult(
  kind: IndexKind,
  request: SearchRequest,
  page: IndexPage,
  context: HintContext,
): SearchResult {
  const papers = page.papers.map(presentRecord);
  const end = request.offset + papers.length;
  const more = papers.length === request.limit && (end < page.total || !page.totalIsExact);
  return {
    papers,
    total: page.total,
    nextOffset: more ? end : null,
    hint: hintFor(kind, request, page, { ...context, more, end }),
    sources: [{ source: 'index', status: 'ok', count: papers.length }],
    scores: page.scores,
  };
}

function hintFor(
  kind: IndexKind,
  request: SearchRequest,
  page: IndexPage,
  context: HintContext & { more: boolean; end: number },
): string {
  const hint = bareHint(kind, request, page, context);
  return context.shortened ? `${context.shortened} ${hint}` : hint;
}

function bareHint(
  kind: IndexKind,
  request: SearchRequest,
  page: IndexPage,
  context: HintContext & { more: boolean; end: number },
): string {
  const noun = kind === 'patent' ? 'patents' : 'papers';
  if (page.papers.length === 0) {
    const tips = ['use fewer or broader keywords'];
    if (request.startYear !== undefined || request.endYear !== undefined)
      tips.push('widen start_year/end_year');
    if (request.peerReviewedOnly)
      tips.push('set peer_reviewed_only=false to include preprints and other types');
    if (request.offset > 0) tips.push('lower the offset');
    return `No ${noun} in the local index matched. Try to ${tips.join(', ')}.`;
  }
  const total = page.totalIsExact ? String(page.total) : `more than ${page.total}`;
  const parts = [`Results ${request.offset + 1}–${context.end} of ${total} ${noun}.`];
  if (context.relaxed) {
    parts.push(
      `No ${noun} contain every keyword (${context.keywords.join(', ')}); these match some of them.`,
    );
  }
  if (context.more) parts.push(`Next page: offset=${context.end}.`);
  parts.push(
    `Read a paper's full text with ${context.hints.searchResult()} when it has a pdf_id; quote a phrase in query to require it.`,
  );
  return parts.join(' ');
}

/**
 * A stored record as search returns it: `source` = index, a `pdf_id` whenever an open PDF url is
 * known, and a landing page for patents that lack one.
 */
export function presentRecord(paper: Paper): Paper {
  const record: Paper = { ...paper, source: 'index' };
  if (!record.pdf_id && record.pdf_url) record.pdf_id = `PDF_URL:${record.pdf_url}`;
  const number = record.patent_number ?? record.identifiers?.patent_number;
  if (!record.url && number)
    record.url = `https://patents.google.com/patent/${number.replace(/[^A-Za-z0-9]/g, '')}`;
  return record;
}
