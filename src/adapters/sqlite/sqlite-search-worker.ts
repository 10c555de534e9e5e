/**
 * A search thread of the SQLite paper index (piscina runs it; `sqlite-search-pool.ts` sends the
 * tasks): a read-only index reader of its own that runs one task at a time.
 */
import { workerData } from 'node:worker_threads';
import type { Paper } from '../../domain/paper.js';
import type { IndexPage } from '../../ports/paper-index.js';
import { openSqlite } from './open-sqlite.js';
import { SqliteIndexReader, tuneIndexConnection } from './sqlite-index-reader.js';
import type { SearchTask, SearchWorkerData } from './sqlite-search-pool.js';
import type { ShardPage } from './sqlite-shard-statements.js';

const { path, mmapBytes, options } = workerData as SearchWorkerData;
// A read-only connection of its own (never share one across threads); WAL lets it read while the
// main thread or an ingest process writes. Opened on the first task, not at import.
let reader: SqliteIndexReader | undefined;

/** The piscina entry point: runs one task on this thread's connection. */
export default async function run(task: SearchTask): Promise<IndexPage | ShardPage | Paper[] | number[]> {
  if (!reader) {
    const db = openSqlite(path, { readonly: true });
    tuneIndexConnection(db, mmapBytes);
    reader = new SqliteIndexReader(db, options);
  }
  if (task.kind === 'shard')
    return reader.searchShard(task.query, task.expression, task.shard, task.frequencies);
  if (task.kind === 'counts') return reader.shardCounts(task.phrases, task.shard);
  if (task.kind === 'records') return reader.recordsOf(task.ids);
  return reader.searchHere(task.query);
}
