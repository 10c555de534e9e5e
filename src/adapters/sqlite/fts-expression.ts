import type { IndexClause, IndexKind } from '../../ports/paper-index.js';
import { facetTokens } from '../paper-index/index-fields.js';

/**
 * FTS5 MATCH expressions built from parsed clauses. User text only ever appears inside double-quoted
 * FTS5 strings (quotes doubled), so no operator, column name or syntax error can come from a query.
 */

/** An FTS5 string for one clause (a term or a phrase: FTS5 tokenises the text the same way as documents). */
export function quoteClause(clause: IndexClause): string | null {
  const text = clause.text.trim();
  if (!/[\p{L}\p{N}]/u.test(text)) return null;
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * The user part: with `must` clauses, all of them, plus an OR group of must and should clauses so
 * that should clauses score without being required (FTS5's bm25 scores only phrases of a matching
 * subtree; the must clauses thus count twice, which is the keyword boost). Without `must`, any of
 * `candidates` (the should clauses that may produce matches), with the others scored through the
 * same OR-group device (measured: dropping them from scoring costs 6 nDCG points on SciFact).
 */
export function userExpression(must: string[], should: string[], candidates: string[] = should): string {
  if (must.length > 0) {
    const required = must.join(' AND ');
    return should.length > 0 ? `${required} AND (${[...must, ...should].join(' OR ')})` : required;
  }
  const any = candidates.join(' OR ');
  if (candidates.length === should.length) return any;
  return `(${any}) AND (${should.join(' OR ')})`;
}

/** How many records carry each facet token (see `facet_counts`). */
export type FacetCounts = ReadonlyMap<string, number>;

/** A filter as FTS5 clauses: tokens a result must have, and tokens it must not have. */
interface FilterParts {
  require: string[];
  exclude: string[];
}

/**
 * Filters as facet clauses, the whole filter running inside FTS5 so that SQLite never probes the
 * FTS table row by row (the year-filter cliff). FTS5's bm25 reads the full doclist of every phrase
 * in the expression (for its IDF), so each filter is written on its cheaper side: "has one of these
 * tokens" or "has none of the others", whichever lists fewer records, and left out when it excludes
 * nothing. Returns null when no record can match (no stored year in the range).
 */
export function filterParts(options: {
  kind: IndexKind;
  peerReviewedOnly: boolean;
  startYear?: number | undefined;
  endYear?: number | undefined;
  counts: FacetCounts;
}): FilterParts | null {
  const parts: FilterParts = { require: [], exclude: [] };
  const count = (token: string) => options.counts.get(token) ?? 0;
  const choose = (wanted: string[], unwanted: string[]) => {
    const unwantedRecords = unwanted.reduce((sum, token) => sum + count(token), 0);
    if (unwantedRecords === 0) return true;
    const wantedRecords = wanted.reduce((sum, token) => sum + count(token), 0);
    if (wantedRecords === 0) return false;
    if (wantedRecords <= unwantedRecords)
      parts.require.push(orOf(wanted.filter((token) => count(token) > 0)));
    else parts.exclude.push(...unwanted.filter((token) => count(token) > 0).map(quoted));
    return true;
  };
  const other: IndexKind = options.kind === 'paper' ? 'patent' : 'paper';
  if (!choose([facetTokens.kind(options.kind)], [facetTokens.kind(other)])) return null;
  if (options.peerReviewedOnly && !choose([facetTokens.reviewed(true)], [facetTokens.reviewed(false)]))
    return null;
  if (options.startYear !== undefined || options.endYear !== undefined) {
    const start = options.startYear ?? Number.NEGATIVE_INFINITY;
    const end = options.endYear ?? Number.POSITIVE_INFINITY;
    const inside: string[] = [];
    const outside: string[] = [];
    for (const token of options.counts.keys()) {
      const match = /^zzy(\d+)$/.exec(token);
      if (!match) continue;
      const year = Number(match[1]);
      (year !== 0 && year >= start && year <= end ? inside : outside).push(token);
    }
    if (!choose(inside, outside)) return null;
  }
  return parts;
}

const quoted = (token: string) => `"${token}"`;
const orOf = (tokens: string[]) =>
  tokens.length === 1 ? quoted(tokens[0] as string) : `(${tokens.map(quoted).join(' OR ')})`;

/** The whole MATCH expression: the user clauses, AND the required facets, NOT the excluded ones. */
export function matchExpression(user: string, filters: FilterParts): string {
  const positive = [`(${user})`, ...filters.require].join(' AND ');
  return filters.exclude.length > 0 ? `(${positive}) NOT (${filters.exclude.join(' OR ')})` : positive;
}
