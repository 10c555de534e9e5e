import { createHash } from 'node:crypto';
import { invalid } from '../domain/errors.js';
import { identifierKey, type PaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { SearchRequest, SearchResult } from '../domain/search.js';
import type { Cache } from '../ports/cache.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import type { IndexKind, IndexPage, IndexQuery, PaperIndex } from '../ports/paper-index.js';
import { type HintVocabulary, restHints } from './hint-vocabulary.js';
import { emptyResultHint } from './search/empty-result-hint.js';
import { fuseByRank, fuseByScore, keepExactTitlesFirst, rrfK } from './search/hybrid-rerank.js';
import { maxSearchWords, type ParsedText, parseSearchText, toClauses } from './search-query.js';
import type { HintedCallOptions, PaperLookup, PaperSearch } from './services.js';

export interface SearchServiceOptions {
  /** How long an identical search is answered from the cache, in seconds (0 = no caching). */
  cacheTtlSeconds: number;
  /** Dense re-ranking of BM25's first candidates (decision 0036); absent: BM25 alone. */
  hybrid?: HybridOptions;
}

/** Hybrid ranking: BM25's top `candidates` re-ranked by RRF with the query's similarity to record vectors. */
export interface HybridOptions {
  /** The model the record vectors were computed with (its id keys them); queries are embedded with it. */
  model: EmbeddingModel;
  /** How many of BM25's first results are re-ranked (1–100); pages past them keep BM25 order. */
  candidates: number;
  /** Longest wait for the query's vector, in ms; past it (or on any error) the page is BM25's. */
  deadlineMs: number;
  /** RRF constant (default 60), when `denseWeight` is absent. */
  k?: number;
  /**
   * Fuse by scores instead of ranks: this weight × the min-max normalised cosine + the rest × the
   * min-max normalised BM25 score, over the candidates (`fuseByScore`). Absent: RRF.
   */
  denseWeight?: number;
  /** Told when the dense step failed or timed out and BM25 answered alone. */
  onFallback?: (error: unknown) => void;
}

/** How long searches stay BM25-only after a search whose candidates had no vectors at all. */
const noVectorsPauseMs = 60_000;

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
  /** Until when relevance searches skip the hybrid step (the last candidates had no vectors). */
  private noVectorsUntil = 0;
  /** Vectors of recent query texts (hybrid ranking), oldest first. */
  private readonly queryVectors = new Map<string, Float32Array>();
  /** Kinds the index is known to hold records of (the index has no delete: it stays so). */
  private readonly kindsHeld = new Set<IndexKind>();
  /** The data version of the last count: until the data changes, a kind not held is still not held. */
  private countedVersion: string | undefined;

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
    const text = [request.keywords?.trim(), request.query?.trim()].filter(Boolean).join(' ');
    let page = await this.page(strict, text);
    let relaxed = false;
    if (page.total === 0 && keywords.words.length > 1) {
      page = await this.page(
        {
          ...base,
          must: phrases,
          should: [...keywords.words, ...question.words],
        },
        text,
      );
      relaxed = page.total > 0;
    }
    const shortened = shortenedNote(keywordText, questionText);
    // An empty page says whether the index has anything of this kind at all (decision 0045).
    const indexEmpty = page.papers.length === 0 && !(await this.holds(kind));
    return toResult(kind, request, page, {
      relaxed,
      keywords: keywordText.words,
      shortened,
      hints,
      indexEmpty,
    });
  }

  /**
   * Whether the index holds any record of `kind`: counted once per data version until it does,
   * then remembered (a count scans the index; an index of papers is asked about patents too).
   */
  private async holds(kind: IndexKind): Promise<boolean> {
    if (this.kindsHeld.has(kind)) return true;
    const version = await this.index.dataVersion();
    if (version === this.countedVersion) return false;
    this.countedVersion = version;
    const counts = await this.index.count();
    if (counts.papers > 0) this.kindsHeld.add('paper');
    if (counts.patents > 0) this.kindsHeld.add('patent');
    return this.kindsHeld.has(kind);
  }

  /**
   * One page of results: BM25's, or for a relevance search with hybrid ranking on and a page that
   * starts within the candidates, BM25's first `candidates` re-ranked by RRF with the dense ranks
   * of those that have vectors, then cut to the page (its tail past the candidates is BM25's).
   * Totals are BM25's. Any failure of the dense step answers with BM25's page.
   */
  private async page(query: IndexQuery, text: string): Promise<RankedPage> {
    const hybrid = this.options.hybrid;
    const n = Math.min(100, hybrid?.candidates ?? 0);
    if (
      !hybrid ||
      n < 2 ||
      query.sort !== 'relevance' ||
      query.offset >= n ||
      !this.index.recordVectors ||
      !this.index.recordsByIds
    ) {
      return this.index.search(query);
    }
    if (Date.now() < this.noVectorsUntil) {
      // The last candidates had no vector at all: keyword ranking, and the hint says why.
      return { ...(await this.index.search(query)), vectorless: 'all' };
    }
    // The query is embedded while BM25 runs (the ONNX model's own query thread).
    const queryVector = this.queryVector(hybrid, text);
    queryVector.catch(() => undefined);
    const head = await this.index.search({ ...query, offset: 0, limit: n, withoutRecords: true });
    const ids = head.ids;
    if (!ids) return this.index.search(query);
    const end = query.offset + query.limit;
    const tail =
      end > n && ids.length === n
        ? await this.index.search({ ...query, offset: n, limit: end - n })
        : undefined;
    let vectorless: RankedPage['vectorless'];
    let order = await this.denseOrder(hybrid, ids, head.scores, queryVector, (missing) => {
      if (missing > 0) vectorless = missing === ids.length ? 'all' : { missing, of: ids.length };
    }).catch((error: unknown) => {
      hybrid.onFallback?.(error);
      return null;
    });
    const readRecords = (wanted: number[]) =>
      head.papers.length === ids.length
        ? new Map(wanted.map((id) => [id, head.papers[ids.indexOf(id)] as Paper]))
        : (this.index.recordsByIds?.(wanted) ?? Promise.resolve(new Map<number, Paper>()));
    if (order && order[0] !== 0) {
      // Known-item search: BM25's first stays first when its title is the query (decision 0036).
      const first = (await readRecords([ids[0] as number])).get(ids[0] as number);
      if (first) order = keepExactTitlesFirst(order, [first.title], text);
    }
    const window = (order ?? ids.map((_, position) => position)).slice(query.offset, Math.min(end, n));
    const records = await readRecords(window.map((position) => ids[position] as number));
    const page: RankedPage = {
      papers: [],
      scores: [],
      total: head.total,
      totalIsExact: head.totalIsExact,
      ids: [],
      ...(vectorless ? { vectorless } : {}),
    };
    for (const position of window) {
      const id = ids[position] as number;
      const paper = records.get(id);
      if (!paper) continue;
      page.papers.push(paper);
      page.scores.push(head.scores[position] ?? 0);
      page.ids?.push(id);
    }
    if (tail) {
      page.papers.push(...tail.papers);
      page.scores.push(...tail.scores);
      if (tail.ids) page.ids?.push(...tail.ids);
      else delete page.ids;
    }
    return page;
  }

  /** The fused order of the candidates' positions, or null when none of them has a vector. */
  private async denseOrder(
    hybrid: HybridOptions,
    ids: number[],
    scores: readonly number[],
    queryVector: Promise<Float32Array>,
    onCoverage: (missing: number) => void,
  ): Promise<number[] | null> {
    if (ids.length < 2 || !this.index.recordVectors) return null;
    const vectors = await this.index.recordVectors(hybrid.model.id, ids);
    onCoverage(ids.length - vectors.size);
    if (vectors.size === 0) {
      // Likely an index without vectors yet: BM25 pages of `limit` rows for a minute.
      this.noVectorsUntil = Date.now() + noVectorsPauseMs;
      return null;
    }
    const query = await queryVector;
    const candidates = ids.map((id) => vectors.get(id));
    return hybrid.denseWeight === undefined
      ? fuseByRank(query, candidates, hybrid.k ?? rrfK)
      : fuseByScore(query, candidates, scores, hybrid.denseWeight);
  }

  /** The query's vector within the deadline (recent ones remembered: a next page asks again). */
  private async queryVector(hybrid: HybridOptions, text: string): Promise<Float32Array> {
    const known = this.queryVectors.get(text);
    if (known) return known;
    const signal = AbortSignal.timeout(hybrid.deadlineMs);
    const embedding = hybrid.model.embed([text], { inputType: 'query', signal });
    const deadline = new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    embedding.catch(() => undefined);
    const [vector] = await Promise.race([embedding, deadline]);
    if (!vector) throw new Error('the embedding model returned no vector');
    if (this.queryVectors.size >= 256)
      this.queryVectors.delete(this.queryVectors.keys().next().value as string);
    this.queryVectors.set(text, vector);
    return vector;
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
  /** The index holds no record of the kind searched (looked at only when the page is empty). */
  indexEmpty: boolean;
}

/**
 * A page with how many of the hybrid step's candidates had no record vector yet (still waiting
 * for the embedding backlog): `'all'` when none had one, so the order is BM25's alone.
 */
type RankedPage = IndexPage & { vectorless?: 'all' | { missing: number; of: number } };

function toResult(
  kind: IndexKind,
  request: SearchRequest,
  page: RankedPage,
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
    indexEmpty: context.indexEmpty,
  };
}

function hintFor(
  kind: IndexKind,
  request: SearchRequest,
  page: RankedPage,
  context: HintContext & { more: boolean; end: number },
): string {
  const hint = bareHint(kind, request, page, context);
  return context.shortened ? `${context.shortened} ${hint}` : hint;
}

function bareHint(
  kind: IndexKind,
  request: SearchRequest,
  page: RankedPage,
  context: HintContext & { more: boolean; end: number },
): string {
  const noun = kind === 'patent' ? 'patents' : 'papers';
  if (page.papers.length === 0) {
    // Used alone (no source searches this kind): the words of decision 0045 say sources are off.
    return emptyResultHint({ kind, request, indexEmpty: context.indexEmpty, sources: [], total: page.total });
  }
  const total = page.totalIsExact ? String(page.total) : `more than ${page.total}`;
  const parts = [`Results ${request.offset + 1}–${context.end} of ${total} ${noun}.`];
  if (context.relaxed) {
    parts.push(
      `No ${noun} contain every keyword (${context.keywords.join(', ')}); these match some of them.`,
    );
  }
  if (context.more) parts.push(`Next page: offset=${context.end}.`);
  const vectorNote = vectorlessNote(page.vectorless);
  if (vectorNote) parts.push(vectorNote);
  parts.push(
    `Read a paper's full text with ${context.hints.searchResult()} when it has a pdf_id; quote a phrase in query to require it.`,
  );
  return parts.join(' ');
}

/**
 * What the hint says when the index's record vectors lag behind its records (an ingest whose
 * vectors are still being computed): the ranking is then partly or wholly by keywords.
 */
export function vectorlessNote(vectorless: RankedPage['vectorless']): string | null {
  if (!vectorless) return null;
  const backlog = 'their vectors are still being computed (`alexandria status` shows the backlog)';
  if (vectorless === 'all') return `Ranked by keywords alone: ${backlog}.`;
  return `${vectorless.missing} of the ${vectorless.of} best keyword matches have no vector yet and keep their keyword rank: ${backlog}.`;
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
