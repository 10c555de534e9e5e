import type { Paper } from './paper.js';

export const sortOrders = ['relevance', 'cited_by_count', 'publication_date'] as const;
export type SortOrder = (typeof sortOrders)[number];

/** A validated search, as the search endpoints, the agent and MCP tools pass it to services. */
export interface SearchRequest {
  /** Terms that should appear (English; 2–6 advised). At least one of keywords/query is set. */
  keywords?: string;
  /** The user's natural-language question; used for ranking. */
  query?: string;
  /** The user's whole request, quoted (patents endpoint); context only. */
  fullUserPrompt?: string;
  sort: SortOrder;
  /** Keep only reviewed types (journal articles, conference papers, granted patents). */
  peerReviewedOnly: boolean;
  /** Inclusive year bounds. */
  startYear?: number;
  endYear?: number;
  offset: number;
  /** Page size, 1–100. */
  limit: number;
}

/** What happened to one source of a (federated) search. */
export interface SourceReport {
  source: string;
  status: 'ok' | 'failed' | 'skipped' | 'timeout';
  count?: number;
  durationMs?: number;
  message?: string;
}

export interface SearchResult {
  papers: Paper[];
  /** Total matches (or a lower bound for federated searches). */
  total: number;
  /** Offset of the next page, or null on the last page. */
  nextOffset: number | null;
  /** What an agent can do next (refine, page on, …). */
  hint: string;
  sources?: SourceReport[];
  /**
   * Relevance score of each paper, same order as `papers`, higher is better (the local index's BM25),
   * when the searcher has one. Federation uses it to weight the local list in rank fusion.
   */
  scores?: number[];
  /**
   * True when the local index holds no record of the kind searched at all (looked at when a page
   * is empty: its hint then says how to fill the index; docs/decisions/0045).
   */
  indexEmpty?: boolean;
}
