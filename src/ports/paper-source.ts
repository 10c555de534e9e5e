import { UpstreamError } from '../domain/errors.js';
import type { IdentifierType, PaperIdentifier } from '../domain/identifiers.js';
import type { Paper } from '../domain/paper.js';
import type { SortOrder } from '../domain/search.js';

/**
 * An upstream scholarly source (OpenAlex, Semantic Scholar, arXiv, Crossref, Europe PMC, PubMed,
 * Unpaywall). Every method is optional: a source implements what its API offers and says which
 * identifier types its `lookup` understands. Adapters go through the shared resilience layer, so
 * a call may fail fast with `SourceSkippedError` (circuit open, rate budget exhausted) or with an
 * `UpstreamError` (timeout, HTTP error); "not found" is `null`, never an error.
 */
export interface PaperSource {
  /** Stable short name used in reports, headers, metrics and config (`openalex`, `semantic_scholar`, …). */
  readonly name: string;
  /**
   * Weight of this source's list in federated search's reciprocal-rank fusion (the local index
   * weighs 1.2); 0.8 when absent.
   */
  readonly fusionWeight?: number;
  /** Identifier types `lookup` resolves; empty when the source cannot look papers up. */
  readonly lookupTypes: readonly IdentifierType[];
  /** Best matches for a query, best first; at most `query.limit` records. */
  search?(query: SourceQuery, options?: SourceCallOptions): Promise<SourcePage>;
  /** The paper with that identifier, or null when the source does not know it. */
  lookup?(identifier: PaperIdentifier, options?: SourceCallOptions): Promise<Paper | null>;
  /** Papers the given paper cites (its bibliography), as far as the source knows them. */
  references?(identifier: PaperIdentifier, options?: SourceListOptions): Promise<Paper[]>;
  /** Papers citing the given paper, most relevant first as the source orders them. */
  citations?(identifier: PaperIdentifier, options?: SourceListOptions): Promise<Paper[]>;
  /** Papers the source considers related (recommendations, co-citation, …). */
  related?(identifier: PaperIdentifier, options?: SourceListOptions): Promise<Paper[]>;
}

/** A search as a source receives it: the federation maps `SearchRequest` onto this. */
export interface SourceQuery {
  /** Free text (keywords and/or the natural-language query). */
  text: string;
  /** Inclusive year bounds, applied upstream where the API supports them. */
  startYear?: number;
  endYear?: number;
  sort: SortOrder;
  /** Ask the source for reviewed work only where it can filter by type. */
  peerReviewedOnly: boolean;
  /** Records wanted (1–100); sources may return fewer. */
  limit: number;
}

export interface SourcePage {
  papers: Paper[];
  /** Total matches the source reports, or null when it does not say. */
  total: number | null;
}

export interface SourceCallOptions {
  /** Aborts the call (request cancelled, federation deadline passed). */
  signal?: AbortSignal;
}

export interface SourceListOptions extends SourceCallOptions {
  /** At most this many records (default 20). */
  limit?: number;
}

/**
 * Thrown without any network traffic when a source is skipped: its circuit breaker is open
 * (recent failures) or its rate budget cannot be met before the caller's deadline.
 */
export class SourceSkippedError extends UpstreamError {
  readonly reason: 'circuit_open' | 'rate_limited';

  constructor(source: string, reason: 'circuit_open' | 'rate_limited', message: string) {
    super(source, message, { retryable: false });
    this.name = 'SourceSkippedError';
    this.reason = reason;
  }
}
