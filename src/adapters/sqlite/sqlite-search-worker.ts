import { workerData } from 'node:worker_threads';
import type { Paper } from '../../domain/paper.js';
import type { IndexPage, IndexQuery } from '../../ports/paper-index.js';
import { openSqlite } from './open-sqlite.js';
import { type ShardPage, SqlitePaperIndex, type SqlitePaperIndexOptions } from './sqlite-paper-index.js';

/** What the pool passes to each search thread. */
export interface SearchWorkerData {
  path: string;
  options: Omit<SqlitePaperIndexOptions, 'searchThreads' | 'shards' | 'shardBlock'>;
}

/**
 * A task for a search thread: a whole search (a one-shard file), one shard's document counts of
 * some phrases, one shard's part of a search (its MATCH expression and, for known-df ranking, the
 * whole index's counts of the expression's phrases), or the records of a merged page.
 */
export type SearchTask =
  | { kind: 'page'; query: IndexQuery }
  | { kind: 'counts'; phrases: string[]; shard: number }
  | {
      kind: 'shard';
      query: IndexQuery;
      expression: string;
      shard: number;
      frequencies?: number[] | undefined;
    }
  | { kind: 'records'; ids: number[] };

const { path, options } = workerData as SearchWorkerData;
// A read-only connection of its own (never share one across threads); WAL lets it read while the
// main thread or an ingest process writes. Opened on the first task, not at import.
let index: SqlitePaperIndex | undefined;

/** The piscina entry point: runs one task on this thread's connection. */
export default async function run(task: SearchTask): Promise<IndexPage | ShardPage | Paper[] | number[]> {
  if (!index) {
    const db = openSqlite(path, { readonly: true });
    db.pragma(`mmap_size = ${Math.max(0, Math.floor(options.mmapBytes ?? 2 ** 31))}`);
    db.pragma('cache_size = -65536');
    index = new SqlitePaperIndex(db, options);
  }
  if (task.kind === 'shard')
    return index.searchShard(task.query, task.expression, task.shard, task.frequencies);
  if (task.kind === 'counts') return index.shardCounts(task.phrases, task.shard);
  if (task.kind === 'records') return index.recordsOf(task.ids);
  return index.searchHere(task.query);
}
