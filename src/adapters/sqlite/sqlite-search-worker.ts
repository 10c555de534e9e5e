import { workerData } from 'node:worker_threads';
import type { IndexPage, IndexQuery } from '../../ports/paper-index.js';
import { openSqlite } from './open-sqlite.js';
import { SqlitePaperIndex, type SqlitePaperIndexOptions } from './sqlite-paper-index.js';

/** What the pool passes to each search thread. */
export interface SearchWorkerData {
  path: string;
  options: Omit<SqlitePaperIndexOptions, 'searchThreads'>;
}

const { path, options } = workerData as SearchWorkerData;
// A read-only connection of its own (never share one across threads); WAL lets it read while the
// main thread or an ingest process writes. Opened on the first task, not at import.
let index: SqlitePaperIndex | undefined;

/** The piscina entry point: one search, run on this thread's connection. */
export default async function search(query: IndexQuery): Promise<IndexPage> {
  if (!index) {
    const db = openSqlite(path, { readonly: true });
    db.pragma(`mmap_size = ${Math.max(0, Math.floor(options.mmapBytes ?? 2 ** 31))}`);
    db.pragma('cache_size = -65536');
    index = new SqlitePaperIndex(db, options);
  }
  return index.search(query);
}
