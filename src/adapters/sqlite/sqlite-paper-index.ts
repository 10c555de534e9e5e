/**
 * The embedded paper index: SQLite FTS5 (contentless, BM25 with field weights) over one file of its
 * own. This module opens and migrates the file and coordinates the parts: reads go to a reader on
 * this connection (`sqlite-index-reader.ts`) or to the search threads (`sqlite-search-pool.ts`),
 * writes to the writer (`sqlite-index-writer.ts`); what both adapters share (fields, facets, BM25
 * parameters, query and upsert planning) lives in `../paper-index/`.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Paper } from '../../domain/paper.js';
import type {
  IndexPage,
  IndexQuery,
  IndexStats,
  PaperIndex,
  RecordToEmbed,
  RecordVectorEntry,
  UpsertSummary,
} from '../../ports/paper-index.js';
import { defaultFieldWeights, type FieldWeights, kindCodes } from '../paper-index/index-fields.js';
import { openSqlite } from './open-sqlite.js';
import { defaultTokenizer, migratePaperIndex } from './paper-index-migrations.js';
import {
  SqliteIndexReader,
  type SqliteIndexReaderOptions,
  tuneIndexConnection,
} from './sqlite-index-reader.js';
import { SqliteIndexWriter } from './sqlite-index-writer.js';
import { SqliteRecordVectors } from './sqlite-record-vectors.js';
import { SqliteSearchPool } from './sqlite-search-pool.js';

export { defaultFieldWeights, type FieldWeights, type SqliteIndexReaderOptions };

export interface SqlitePaperIndexOptions extends SqliteIndexReaderOptions {
  /** FTS5 tokenizer, used only when the file is created (default porter + unicode61). */
  tokenizer?: string;
  /** Bytes of the file SQLite may memory-map for reads (default 2 GiB; 0 turns it off). */
  mmapBytes?: number;
  /**
   * Worker threads that run searches on read-only connections of their own, so that a search over
   * a large index never blocks the event loop (default 0: searches run inline). With several
   * shards, the shards of one search run on different threads at once.
   */
  searchThreads?: number;
  /** Full-text shards of a new file (default 2; fixed when the file is created). */
  shards?: number;
  /** Consecutive ids per shard stripe of a new file (default 1 000: small indexes live in one shard). */
  shardBlock?: number;
}

/** Opens (creating and migrating when needed) the index file at `path`. */
export async function createSqlitePaperIndex(
  path: string,
  options: SqlitePaperIndexOptions = {},
): Promise<SqlitePaperIndex> {
  const db = openSqlite(path);
  try {
    tuneIndexConnection(db, options.mmapBytes);
    migratePaperIndex(db, {
      tokenizer: options.tokenizer ?? defaultTokenizer,
      shards: options.shards ?? 2,
      shardBlock: options.shardBlock ?? 1000,
    });
    // The file's identity and write counter (see `dataVersion`); the first opener writes them.
    db.prepare(
      "INSERT OR IGNORE INTO index_settings (name, value) VALUES ('index_id', ?), ('data_version', '0')",
    ).run(randomUUID());
    return new SqlitePaperIndex(db, options, path);
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The PaperIndex on one SQLite file. Writes are synchronous and transactional per `upsert` call;
 * reads use the same connection or the search threads (WAL lets another process write meanwhile;
 * `PRAGMA data_version` tells when it did).
 */
export class SqlitePaperIndex implements PaperIndex {
  private readonly reader: SqliteIndexReader;
  private readonly writer: SqliteIndexWriter;
  private readonly pool: SqliteSearchPool | undefined;
  private readonly vectors: SqliteRecordVectors;
  private readonly statements;
  /** The file's random identity (`index_settings.index_id`), read once. */
  private indexId: string | undefined;

  /** `path`: the file's, for the search threads' own connections (none without it). */
  constructor(
    private readonly db: Database.Database,
    options: SqlitePaperIndexOptions = {},
    path?: string,
  ) {
    const {
      tokenizer: _tokenizer,
      mmapBytes,
      searchThreads = 0,
      shards: _shards,
      shardBlock: _block,
      ...readerOptions
    } = options;
    this.reader = new SqliteIndexReader(db, readerOptions);
    this.writer = new SqliteIndexWriter(db, this.reader.records);
    this.vectors = new SqliteRecordVectors(db, (ids) => this.reader.recordsOf(ids));
    this.pool =
      searchThreads > 0 && path !== undefined
        ? new SqliteSearchPool(this.reader, { path, mmapBytes, options: readerOptions }, searchThreads)
        : undefined;
    this.statements = {
      counts: db.prepare('SELECT kind, count(*) AS n FROM papers GROUP BY kind'),
      setting: db.prepare('SELECT value FROM index_settings WHERE name = ?').pluck(),
    };
  }

  async upsert(papers: readonly Paper[]): Promise<UpsertSummary> {
    // Another process's commit makes the cached record blocks stale before they are merged into.
    this.reader.checkDataVersion();
    const summary = this.writer.upsert(papers);
    if (summary.inserted + summary.merged > 0) this.reader.forgetCaches();
    return summary;
  }

  /** A page of results: on the search threads when there are some, else on this connection. */
  async search(query: IndexQuery): Promise<IndexPage> {
    return this.pool ? this.pool.search(query) : this.reader.searchHere(query);
  }

  /** Stored records by id, in that order. */
  recordsOf(ids: readonly number[]): Paper[] {
    return this.reader.recordsOf(ids);
  }

  /** Full-text shards of the file (fixed when it was created). */
  get shardCount(): number {
    return this.reader.shardCount;
  }

  /** The full-text table of each shard, for benchmarks that run the same MATCH raw. */
  get shardTables(): string[] {
    return this.reader.shardTables;
  }

  /** The FTS5 MATCH expression a query runs on every shard (null when nothing can match); see the reader. */
  matchExpressionFor(query: IndexQuery): string | null {
    return this.reader.matchExpressionFor(query);
  }

  /** SQLite's plan for the statement a query runs (EXPLAIN QUERY PLAN details, outer loop first). */
  queryPlan(query: IndexQuery): string[] {
    return this.reader.queryPlan(query);
  }

  async findByKeys(keys: readonly string[]): Promise<Paper | null> {
    // Another process (an ingest) may have committed since: cached blocks would be stale.
    this.reader.checkDataVersion();
    for (const key of keys) {
      const [owner] = this.writer.owners(key);
      if (owner) return owner[1];
    }
    return null;
  }

  /**
   * `<index id>.<write counter>`: the id is random per file, the counter a row bumped by every
   * upsert that changed a record, inside its transaction, so commits by another process count too
   * (`PRAGMA data_version` would not do: it is per connection and blind to this one's writes).
   */
  async dataVersion(): Promise<string> {
    this.indexId ??= String(this.statements.setting.get('index_id'));
    return `${this.indexId}.${String(this.statements.setting.get('data_version'))}`;
  }

  async count(): Promise<{ papers: number; patents: number }> {
    const counts = { papers: 0, patents: 0 };
    for (const row of this.statements.counts.all() as Array<{ kind: number; n: number }>) {
      if (row.kind === kindCodes.patent) counts.patents = row.n;
      else counts.papers += row.n;
    }
    return counts;
  }

  /** Merges the full-text index's segments into one (after a bulk load; faster queries). */
  async optimize(): Promise<void> {
    for (const table of this.reader.shardTables)
      this.db.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
  }

  async recordsWithoutVectors(model: string, afterId: number, limit: number): Promise<RecordToEmbed[]> {
    // Another process (an ingest) may have committed since: cached blocks would be stale.
    this.reader.checkDataVersion();
    return this.vectors.missing(model, afterId, limit);
  }

  async recordsByIds(ids: readonly number[]): Promise<Map<number, Paper>> {
    const present = this.vectors.present(ids);
    const papers = this.reader.recordsOf(present);
    return new Map(present.map((id, position) => [id, papers[position] as Paper]));
  }

  async putRecordVectors(model: string, entries: readonly RecordVectorEntry[]): Promise<number> {
    return this.vectors.put(model, entries);
  }

  async recordVectors(model: string, ids: readonly number[]): Promise<Map<number, Float32Array>> {
    return this.vectors.get(model, ids);
  }

  async vectorCoverage(model: string): Promise<{ withVectors: number; records: number }> {
    return this.vectors.coverage(model);
  }

  /** Two counts on the read-write connection: the records, and one model's vectors (no table scan of records' text). */
  async stats(vectorModel?: string): Promise<IndexStats> {
    if (vectorModel === undefined) return { records: this.vectors.records() };
    const { withVectors, records } = this.vectors.coverage(vectorModel);
    return {
      records,
      vectors: { model: vectorModel, stored: withVectors, pending: Math.max(0, records - withVectors) },
    };
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    if (this.db.open) this.db.close();
  }
}
