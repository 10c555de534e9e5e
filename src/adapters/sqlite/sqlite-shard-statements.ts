/**
 * The full-text shards of the SQLite paper index: the statements prepared on each shard's FTS5
 * table (counting, ranking by each sort, writing), and how the shards' parts of one search merge
 * into its page. Used by the reader (inline or on a search thread), the writer and the pool.
 */
import type Database from 'better-sqlite3';
import type { IndexQuery } from '../../ports/paper-index.js';
import type { FieldWeights } from '../paper-index/index-fields.js';

/** A ranked row of one shard: id, BM25 (lower is better) and the sort's key (null for relevance). */
export interface ShardRow {
  id: number;
  score: number;
  key: number | string | null;
}

/** One shard's part of a search: its first `offset + limit` rows and how many rows match. */
export interface ShardPage {
  rows: ShardRow[];
  counted: number;
  /** False when `counted` stopped at the count cap (a lower bound). */
  exact: boolean;
}

/** The read statements of one full-text shard. */
export interface ShardStatements {
  table: string;
  /** Exact document count of one phrase. */
  documents: Database.Statement;
  /** Matching rows, counted up to a cap (the second parameter). */
  count: Database.Statement;
  byRelevance: Database.Statement;
  byCitations: Database.Statement;
  byDate: Database.Statement;
}

/** The write statements of one full-text shard (the writer's connection only). */
export interface ShardWriteStatements {
  insert: Database.Statement;
  delete: Database.Statement;
}

/**
 * Prepares a shard's read statements. With `knownDf`, ranking uses `alexandria_bm25` and the
 * statement's first parameter is the frequency blob; otherwise FTS5's bm25().
 */
export function shardStatements(
  db: Database.Database,
  table: string,
  w: FieldWeights,
  knownDf: boolean,
): ShardStatements {
  const weights = [w.title, w.abstract, w.authors, w.venue, w.extra, 0].map(Number).join(', ');
  // With known frequencies the statement's first parameter is their blob; a sort's key is the
  // function's last argument, so that it can skip rows that cannot make the page.
  const bm25 = (key?: string) =>
    knownDf
      ? `alexandria_bm25(${table}, ?, ${weights}${key ? `, papers.${key}` : ''})`
      : `bm25(${table}, ${weights})`;
  const sorted = (key: string) =>
    db.prepare(
      `SELECT ${table}.rowid AS id, ${bm25(key)} AS score, papers.${key} AS key FROM ${table} CROSS JOIN papers ON papers.id = ${table}.rowid
       WHERE ${table} MATCH ? ORDER BY papers.${key} IS NULL, papers.${key} DESC, score LIMIT ?`,
    );
  return {
    table,
    documents: db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck(),
    count: db.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`).pluck(),
    byRelevance: db.prepare(
      `SELECT rowid AS id, ${bm25()} AS score, NULL AS key FROM ${table} WHERE ${table} MATCH ? ORDER BY score LIMIT ?`,
    ),
    byCitations: sorted('cited_by_count'),
    byDate: sorted('published'),
  };
}

/** Prepares a shard's write statements: a record's full-text entry in, or out. */
export function shardWriteStatements(db: Database.Database, table: string): ShardWriteStatements {
  return {
    insert: db.prepare(
      `INSERT INTO ${table} (rowid, title, abstract, authors, venue, extra, facets) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
  };
}

/** The ranking statement of a sort. */
export function statementForSort(statements: ShardStatements, sort: IndexQuery['sort']): Database.Statement {
  if (sort === 'cited_by_count') return statements.byCitations;
  if (sort === 'publication_date') return statements.byDate;
  return statements.byRelevance;
}

/**
 * The page of a search from its shards' parts: rows merged in the query's order (a known key
 * first, larger first; then BM25; then id), `offset` skipped, `limit` kept; the counts added up
 * (exact when every shard's count is).
 */
export function mergeShardPages(
  parts: readonly ShardPage[],
  query: Pick<IndexQuery, 'offset' | 'limit'>,
): { rows: ShardRow[]; total: number; totalIsExact: boolean } {
  const all = parts.flatMap((part) => part.rows);
  if (parts.length > 1) {
    all.sort((a, b) => {
      if (a.key !== b.key) {
        if (a.key === null) return 1;
        if (b.key === null) return -1;
        return a.key < b.key ? 1 : -1;
      }
      return a.score - b.score || a.id - b.id;
    });
  }
  const rows = all.slice(query.offset, query.offset + query.limit);
  const counted = parts.reduce((sum, part) => sum + part.counted, 0);
  return {
    rows,
    total: Math.max(counted, rows.length > 0 ? query.offset + rows.length : 0),
    totalIsExact: parts.every((part) => part.exact),
  };
}
