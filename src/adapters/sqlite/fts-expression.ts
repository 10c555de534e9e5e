import type { IndexClause, IndexKind } from '../../ports/paper-index.js';

/**
 * FTS5 MATCH expressions built from parsed clauses. User text only ever appears inside double-quoted
 * FTS5 strings (quotes doubled), so no operator, column name or syntax error can come from a query.
 */

/** The FTS5 columns, in table order; `facets` holds filter tokens and has weight 0. */
export const ftsColumns = ['title', 'abstract', 'authors', 'venue', 'extra', 'facets'] as const;
const textColumns = '{title abstract authors venue extra}';

/** An FTS5 string for one clause (a term or a phrase: FTS5 tokenises the text the same way as documents). */
export function quoteClause(clause: IndexClause): string | null {
  const text = clause.text.trim();
  if (!/[\p{L}\p{N}]/u.test(text)) return null;
  return `"${text.replace(/"/g, '""')}"`;
}

/** Facet tokens of one record (see `filterExpression`). */
export function facetText(kind: IndexKind, year: number | null, reviewed: boolean): string {
  return `k${kind} y${year ?? 0} r${reviewed ? 1 : 0}`;
}

/**
 * The user part: with `must` clauses, all of them, plus an OR group of must and should clauses so
 * that should clauses score without being required (FTS5's bm25 scores only phrases of a matching
 * subtree; the must clauses thus count twice, which is the keyword boost). Without `must`, any of
 * `candidates` (the should clauses that may produce matches), with the others scored through the
 * same OR-group device.
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

/**
 * Filters as facet clauses: the kind, the reviewed flag, and the year range expanded to the years
 * the index holds (the shorter of "one of these years" and "none of the other years"), so that the
 * whole filter runs inside FTS5 and SQLite never probes the FTS table row by row (the year-filter
 * cliff). Returns null when no stored year lies in the range (nothing can match).
 */
export function filterExpression(options: {
  kind: IndexKind;
  peerReviewedOnly: boolean;
  startYear?: number | undefined;
  endYear?: number | undefined;
  knownYears: readonly number[];
}): string | null {
  const parts = [`facets : "k${options.kind}"`];
  if (options.peerReviewedOnly) parts.push('facets : "r1"');
  let exclude: string[] = [];
  if (options.startYear !== undefined || options.endYear !== undefined) {
    const start = options.startYear ?? Number.NEGATIVE_INFINITY;
    const end = options.endYear ?? Number.POSITIVE_INFINITY;
    const inside = options.knownYears.filter((year) => year !== 0 && year >= start && year <= end);
    if (inside.length === 0) return null;
    const outside = [
      'y0',
      ...options.knownYears
        .filter((year) => year !== 0 && (year < start || year > end))
        .map((year) => `y${year}`),
    ];
    if (inside.length <= outside.length) {
      parts.push(`facets : (${inside.map((year) => `"y${year}"`).join(' OR ')})`);
    } else {
      exclude = outside.map((token) => `"${token}"`);
    }
  }
  const positive = parts.join(' AND ');
  return exclude.length > 0 ? `(${positive}) NOT facets : (${exclude.join(' OR ')})` : positive;
}

/** The whole MATCH expression: user clauses on the text columns, AND the filters. */
export function matchExpression(user: string, filters: string): string {
  return `(${textColumns} : (${user})) AND (${filters})`;
}

/** A single clause on the text columns (document-frequency probes). */
export function clauseProbe(quoted: string): string {
  return `${textColumns} : ${quoted}`;
}
