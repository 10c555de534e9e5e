/**
 * Searches of the SQLite paper index on worker threads (`sqlite-search-worker.ts`), each with a
 * read-only connection of its own: the protocol the threads speak, and how one search fans out —
 * one task for a one-shard file; otherwise the shards' clause counts, then their parts, all at
 * once, merged here, and the page's records read last.
 */
import { Piscina } from 'piscina';
import type { Paper } from '../../domain/paper.js';
import { workerModule } from '../../platform/worker-file.js';
import type { IndexPage, IndexQuery } from '../../ports/paper-index.js';
import { emptyPage, type SqliteIndexReader, type SqliteIndexReaderOptions } from './sqlite-index-reader.js';
import { mergeShardPages, type ShardPage } from './sqlite-shard-statements.js';

/** What the pool passes to each search thread. */
export interface SearchWorkerData {
  path: string;
  /** Bytes of the file the thread's connection memory-maps (see `tuneIndexConnection`). */
  mmapBytes?: number | undefined;
  options: SqliteIndexReaderOptions;
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

/**
 * A pool of search threads for one index file. `reader` is the coordinating connection's: it plans
 * each search's expression from the counts the threads made, and keeps them per data version.
 */
export class SqliteSearchPool {
  private readonly pool: Piscina<SearchTask, unknown>;

  constructor(
    private readonly reader: SqliteIndexReader,
    workerData: SearchWorkerData,
    threads: number,
  ) {
    this.pool = new Piscina<SearchTask, unknown>({
      ...workerModule(new URL('./sqlite-search-worker.js', import.meta.url)),
      workerData,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      atomics: 'disabled',
    });
  }

  /**
   * A page of results. With several shards, every shard runs on its own thread at once; their rows
   * merge by the sort, and the page's records are read last.
   */
  async search(query: IndexQuery): Promise<IndexPage> {
    const reader = this.reader;
    if (reader.shardCount === 1) return (await this.pool.run({ kind: 'page', query })) as IndexPage;
    await this.countClauses(query);
    const expression = reader.matchExpressionFor(query);
    if (expression === null) return emptyPage;
    const frequencies = reader.frequenciesFor(expression);
    const parts = (await Promise.all(
      this.shards().map((shard) => this.pool.run({ kind: 'shard', query, expression, shard, frequencies })),
    )) as ShardPage[];
    const { rows, total, totalIsExact } = mergeShardPages(parts, query);
    const papers = query.withoutRecords
      ? []
      : ((await this.pool.run({ kind: 'records', ids: rows.map((row) => row.id) })) as Paper[]);
    return {
      papers,
      scores: rows.map((row) => -row.score),
      total,
      totalIsExact,
      ids: rows.map((row) => row.id),
    };
  }

  async destroy(): Promise<void> {
    await this.pool.destroy();
  }

  /**
   * Has the search threads count, each in its own shard and all at once, the query's clauses this
   * thread has no counts for yet (a common word costs its walk once per data version, split over
   * the cores); the expression and the frequencies are then made here, from the cache.
   */
  private async countClauses(query: IndexQuery): Promise<void> {
    const missing = this.reader.uncountedClauses(query);
    if (missing.length === 0) return;
    const counts = (await Promise.all(
      this.shards().map((shard) => this.pool.run({ kind: 'counts', phrases: missing, shard })),
    )) as number[][];
    counts.forEach((shardCounts, shard) => {
      this.reader.rememberCounts(missing, shard, shardCounts);
    });
  }

  private shards(): number[] {
    return Array.from({ length: this.reader.shardCount }, (_, shard) => shard);
  }
}
