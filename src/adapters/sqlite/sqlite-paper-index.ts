import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { Piscina } from 'piscina';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { workerModule } from '../../platform/worker-file.js';
import type { IndexPage, IndexQuery, PaperIndex, UpsertSummary } from '../../ports/paper-index.js';
import {
  defaultFieldWeights,
  type FieldWeights,
  facetsFor,
  indexedText,
  keyHash,
  kindCodes,
  paperColumns,
} from '../paper-index/index-fields.js';
import { planClauses } from '../paper-index/query-plan.js';
import { planUpsert } from '../paper-index/upsert-plan.js';
import {
  frequencyBlob,
  ftsTotals,
  type IndexTotals,
  loadKnownDfBm25,
  phrasesOf,
  type RankedBy,
} from './bm25-known-df.js';
import { filterParts, matchExpression, quoteClause, userExpression } from './fts-expression.js';
import { openSqlite } from './open-sqlite.js';
import { defaultTokenizer, ftsTable, migratePaperIndex, readShardLayout } from './paper-index-migrations.js';
import { PaperRecordBlocks, type RecordLocation } from './paper-record-blocks.js';
import { recordJson } from './paper-record-codec.js';
import type { SearchTask, SearchWorkerData } from './sqlite-search-worker.js';

export { defaultFieldWeights, type FieldWeights };

export interface SqlitePaperIndexOptions {
  /** FTS5 tokenizer, used only when the file is created (default porter + unicode61). */
  tokenizer?: string;
  weights?: FieldWeights;
  /**
   * Broad queries without required clauses draw candidates only from their rarest clauses while
   * the rarer ones' document counts stay within this budget (default 25 000 rows).
   */
  candidateBudget?: number;
  /**
   * Should clauses found in more than this fraction of the records are not scored (default 0.5;
   * see `selectiveClauses`).
   */
  commonFraction?: number;
  /** …but never clauses in fewer than this many records (default 1 000: small indexes keep every word). */
  commonFloor?: number;
  /**
   * Without the extension, and for a page past the last match, matches are counted up to this
   * number (beyond, the total is a lower bound; default 10 000). Otherwise ranking counts them.
   */
  countCap?: number;
  /** Bytes of the file SQLite may memory-map for reads (default 2 GiB; 0 turns it off). */
  mmapBytes?: number;
  /**
   * `known-df` (default when the extension is built): BM25 with the phrases' document frequencies
   * kept per shard and data version (`alexandria_bm25`); `fts5`: FTS5's bm25(), which counts them
   * by walking every phrase's doclist on every search. Both give the same scores.
   */
  bm25?: 'known-df' | 'fts5';
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
    const mmap = options.mmapBytes ?? 2 ** 31;
    db.pragma(`mmap_size = ${Math.max(0, Math.floor(mmap))}`);
    db.pragma('cache_size = -65536');
    migratePaperIndex(db, {
      tokenizer: options.tokenizer ?? defaultTokenizer,
      shards: options.shards ?? 2,
      shardBlock: options.shardBlock ?? 1000,
    });
    // The file's identity and write counter (see `dataVersion`); the first opener writes them.
    db.prepare(
      "INSERT OR IGNORE INTO index_settings (name, value) VALUES ('index_id', ?), ('data_version', '0')",
    ).run(randomUUID());
    const { searchThreads = 0, shards: _shards, shardBlock: _block, ...readerOptions } = options;
    const pool =
      searchThreads > 0
        ? new Piscina<SearchTask, unknown>({
            ...workerModule(new URL('./sqlite-search-worker.js', import.meta.url)),
            workerData: { path, options: readerOptions } satisfies SearchWorkerData,
            minThreads: 0,
            maxThreads: searchThreads,
            idleTimeout: 60_000,
            atomics: 'disabled',
          })
        : undefined;
    return new SqlitePaperIndex(db, readerOptions, pool);
  } catch (error) {
    db.close();
    throw error;
  }
}

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

/** The statements of one full-text shard. */
interface ShardStatements {
  table: string;
  /** Exact document count of one phrase. */
  documents: Database.Statement;
  insert: Database.Statement;
  delete: Database.Statement;
  count: Database.Statement;
  byRelevance: Database.Statement;
  byCitations: Database.Statement;
  byDate: Database.Statement;
}

/**
 * The embedded index: SQLite FTS5 (contentless, BM25 with field weights) over one file of its own.
 * Writes are synchronous and transactional per `upsert` call; reads use the same connection (WAL
 * lets another process write meanwhile; `PRAGMA data_version` tells when it did).
 */
export class SqlitePaperIndex implements PaperIndex {
  private readonly weights: FieldWeights;
  private readonly candidateBudget: number;
  private readonly countCap: number;
  private readonly commonFraction: number;
  private readonly commonFloor: number;
  private readonly statements;
  private readonly shards: ShardStatements[];
  private readonly shardBlock: number;
  /** Ranking with `alexandria_bm25` and cached document frequencies (else FTS5's bm25()). */
  private readonly knownDf: boolean;
  /**
   * Records holding a phrase, per shard (`<shard>\0<phrase>`): counted on this connection, or by
   * the search threads for the coordinating one; cleared when the data changes.
   */
  private readonly shardDocuments = new Map<string, number>();
  private facetCounts: Map<string, number> | null = null;
  private indexTotals: IndexTotals | null = null;
  /** This connection's last `PRAGMA data_version` (it changes when another connection commits). */
  private seenDataVersion = -1;
  /** The file's random identity (`index_settings.index_id`), read once. */
  private indexId: string | undefined;
  private readonly records: PaperRecordBlocks;
  /** The id the next new record gets (set under the write lock of each upsert). */
  private nextId = 1;

  constructor(
    private readonly db: Database.Database,
    options: SqlitePaperIndexOptions = {},
    private readonly pool?: Piscina<SearchTask, unknown>,
  ) {
    this.records = new PaperRecordBlocks(db);
    this.weights = options.weights ?? defaultFieldWeights;
    this.candidateBudget = options.candidateBudget ?? 25_000;
    this.countCap = options.countCap ?? 10_000;
    this.commonFraction = options.commonFraction ?? 0.5;
    this.commonFloor = options.commonFloor ?? 1000;
    const w = this.weights;
    const layout = readShardLayout(db);
    this.shardBlock = layout.shardBlock;
    this.knownDf = options.bm25 !== 'fts5' && loadKnownDfBm25(db);
    this.shards = Array.from({ length: layout.shards }, (_, shard) =>
      shardStatements(db, ftsTable(shard), w, this.knownDf),
    );
    this.statements = {
      putPaper: db.prepare(
        'INSERT OR REPLACE INTO papers (id, kind, year, published, cited_by_count, reviewed, block, slot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      deletePaper: db.prepare('DELETE FROM papers WHERE id = ?'),
      location: db.prepare('SELECT block, slot FROM papers WHERE id = ?'),
      lastId: db.prepare('SELECT coalesce(max(id), 0) FROM papers').pluck(),
      insertKey: db.prepare('INSERT OR IGNORE INTO paper_keys (hash, paper_id) VALUES (?, ?)'),
      deleteKey: db.prepare('DELETE FROM paper_keys WHERE hash = ? AND paper_id = ?'),
      idsOfKey: db.prepare('SELECT paper_id FROM paper_keys WHERE hash = ?').pluck(),
      countFacet: db.prepare(
        'INSERT INTO facet_counts (token, records) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET records = records + excluded.records',
      ),
      facetCounts: db.prepare('SELECT token, records FROM facet_counts WHERE records > 0').raw(),
      counts: db.prepare('SELECT kind, count(*) AS n FROM papers GROUP BY kind'),
      rankedRows: db.prepare(this.knownDf ? 'SELECT alexandria_bm25_rows()' : 'SELECT 0').pluck(),
      setting: db.prepare('SELECT value FROM index_settings WHERE name = ?').pluck(),
      bumpDataVersion: db.prepare(
        "UPDATE index_settings SET value = CAST(value AS INTEGER) + 1 WHERE name = 'data_version'",
      ),
    };
  }

  async upsert(papers: readonly Paper[]): Promise<UpsertSummary> {
    const summary: UpsertSummary = { inserted: 0, merged: 0, unchanged: 0 };
    this.checkDataVersion();
    try {
      // IMMEDIATE: the write lock is taken first, so the next ids cannot race another process.
      this.db
        .transaction(() => {
          this.nextId = (this.statements.lastId.get() as number) + 1;
          for (const paper of papers) this.upsertOne(paper, summary);
          this.flush();
          // In the same transaction: no reader sees the new records under the old version.
          if (summary.inserted + summary.merged > 0) this.statements.bumpDataVersion.run();
        })
        .immediate();
    } finally {
      this.records.reset();
    }
    if (summary.inserted + summary.merged > 0) this.forgetCaches();
    return summary;
  }

  /**
   * A page of results. With several shards and search threads, every shard runs on its own thread
   * at once; their rows merge by the sort, and the page's records are read last.
   */
  async search(query: IndexQuery): Promise<IndexPage> {
    const pool = this.pool;
    if (!pool) return this.searchHere(query);
    if (this.shards.length === 1) return (await pool.run({ kind: 'page', query })) as IndexPage;
    await this.countClauses(query, pool);
    const expression = this.matchExpressionFor(query);
    if (expression === null) return { papers: [], scores: [], total: 0, totalIsExact: true };
    const frequencies = this.knownDf ? this.phraseFrequencies(expression) : undefined;
    const parts = (await Promise.all(
      this.shards.map((_, shard) => pool.run({ kind: 'shard', query, expression, shard, frequencies })),
    )) as ShardPage[];
    const { rows, total, totalIsExact } = mergeShardPages(parts, query);
    const papers = (await pool.run({ kind: 'records', ids: rows.map((row) => row.id) })) as Paper[];
    return { papers, scores: rows.map((row) => -row.score), total, totalIsExact };
  }

  /**
   * Has the search threads count, each in its own shard and all at once, the query's clauses this
   * thread has no counts for yet (a common word costs its walk once per data version, split over
   * the cores); the expression and the frequencies are then made here, from the cache.
   */
  private async countClauses(query: IndexQuery, pool: Piscina<SearchTask, unknown>): Promise<void> {
    this.checkDataVersion();
    const clauses = unique([...query.must, ...query.should].map(quoteClause));
    const missing = clauses.filter((clause) =>
      this.shards.some((_, shard) => !this.shardDocuments.has(shardKey(shard, clause))),
    );
    if (missing.length === 0) return;
    const counts = (await Promise.all(
      this.shards.map((_, shard) => pool.run({ kind: 'counts', phrases: missing, shard })),
    )) as number[][];
    counts.forEach((shardCounts, shard) => {
      missing.forEach((clause, index) => {
        this.remember(shard, clause, shardCounts[index] ?? 0);
      });
    });
  }

  /** Records of one shard holding each phrase (counted once per data version on this connection). */
  shardCounts(phrases: readonly string[], shard: number): number[] {
    this.checkDataVersion();
    return phrases.map((phrase) => this.documentsInShard(phrase, shard));
  }

  /** The whole search on this thread's connection, shard after shard. */
  searchHere(query: IndexQuery): IndexPage {
    const expression = this.matchExpressionFor(query);
    if (expression === null) return { papers: [], scores: [], total: 0, totalIsExact: true };
    const frequencies = this.knownDf ? this.phraseFrequencies(expression) : undefined;
    const parts = this.shards.map((_, shard) => this.searchShard(query, expression, shard, frequencies));
    const { rows, total, totalIsExact } = mergeShardPages(parts, query);
    return {
      papers: this.recordsOf(rows.map((row) => row.id)),
      scores: rows.map((row) => -row.score),
      total,
      totalIsExact,
    };
  }

  /**
   * One shard's first `offset + limit` rows for `expression` in the query's order, and how many
   * rows match. With known-df ranking (`frequencies`: the whole index's counts of the expression's
   * phrases) the ranking statement has counted them (`alexandria_bm25_rows()`: every matching row
   * passes through it), so matching runs once; otherwise, or for a page past the end, a count of
   * its own runs, capped.
   */
  searchShard(query: IndexQuery, expression: string, shard: number, frequencies?: number[]): ShardPage {
    this.checkDataVersion();
    const statement = this.statementFor(query.sort, shard);
    const size = query.offset + query.limit;
    const rows = (
      frequencies
        ? statement.all(this.rankingBlob(query, frequencies, size), expression, size)
        : statement.all(expression, size)
    ) as ShardRow[];
    if (frequencies && rows.length > 0) {
      return { rows, counted: this.statements.rankedRows.get() as number, exact: true };
    }
    const cap = Math.ceil(this.countCap / this.shards.length);
    const counted = (this.shards[shard] as ShardStatements).count.get(expression, cap) as number;
    return { rows, counted, exact: counted < cap };
  }

  /**
   * The whole index's document count of each phrase of `expression`, in order (what
   * `alexandria_bm25` takes, so that every shard scores as one index would). Facets, in a column
   * of weight 0, take their stored counts (their IDF multiplies zero).
   */
  private phraseFrequencies(expression: string): number[] {
    const facets = this.counts();
    return phrasesOf(expression).map((phrase) => {
      const facet = /^"zz[kry]\w*"$/.test(phrase) ? facets.get(phrase.slice(1, -1)) : undefined;
      return facet ?? this.documentFrequency(phrase);
    });
  }

  /** `alexandria_bm25`'s blob: whole-index totals, the rows kept and how they are ranked, the frequencies. */
  private rankingBlob(query: IndexQuery, frequencies: readonly number[], keep: number): Buffer {
    const rankedBy: RankedBy = query.sort === 'relevance' ? 'score' : 'key';
    return frequencyBlob(this.totals(), keep, rankedBy, frequencies);
  }

  /** Records holding `phrase` (an FTS5 string) in all shards. */
  private documentFrequency(phrase: string): number {
    return this.shards.reduce((sum, _, shard) => sum + this.documentsInShard(phrase, shard), 0);
  }

  /** Records of shard `shard` holding `phrase`, counted once per data version. */
  private documentsInShard(phrase: string, shard: number): number {
    const value = this.shardDocuments.get(shardKey(shard, phrase));
    if (value !== undefined) return value;
    const counted = (this.shards[shard] as ShardStatements).documents.get(phrase) as number;
    this.remember(shard, phrase, counted);
    return counted;
  }

  private remember(shard: number, phrase: string, count: number): void {
    if (this.shardDocuments.size > 100_000) this.shardDocuments.clear();
    this.shardDocuments.set(shardKey(shard, phrase), count);
  }

  /** Rows and tokens of all shards together (cached until the data changes). */
  private totals(): IndexTotals {
    if (!this.indexTotals) {
      const totals = { rows: 0, tokens: 0 };
      for (const { table } of this.shards) {
        const shard = ftsTotals(this.db, table);
        totals.rows += shard.rows;
        totals.tokens += shard.tokens;
      }
      this.indexTotals = totals;
    }
    return this.indexTotals;
  }

  /** Stored records by id, in that order (missing ones left out). */
  recordsOf(ids: readonly number[]): Paper[] {
    this.checkDataVersion();
    return this.records.getMany(ids);
  }

  /** Full-text shards of the file (fixed when it was created). */
  get shardCount(): number {
    return this.shards.length;
  }

  /** The full-text table of each shard, for benchmarks that run the same MATCH raw. */
  get shardTables(): string[] {
    return this.shards.map((shard) => shard.table);
  }

  /**
   * The FTS5 MATCH expression a query runs on every shard (null when nothing can match): filters
   * as facet clauses, broad should-only queries narrowed to their selective clauses (by the whole
   * index's document counts). Public for benchmarks and debugging, which run it raw on the file.
   */
  matchExpressionFor(query: IndexQuery): string | null {
    this.checkDataVersion();
    const must = unique(query.must.map(quoteClause));
    const should = unique(query.should.map(quoteClause)).filter((clause) => !must.includes(clause));
    if (must.length === 0 && should.length === 0) return null;
    const filters = filterParts({
      kind: query.kind,
      peerReviewedOnly: query.peerReviewedOnly,
      startYear: query.startYear,
      endYear: query.endYear,
      counts: this.counts(),
    });
    if (filters === null) return null;
    const { candidates, scored } = planClauses(
      must,
      should,
      (clause) => this.documentFrequency(clause),
      this.totals().rows,
      {
        candidateBudget: this.candidateBudget,
        commonFraction: this.commonFraction,
        commonFloor: this.commonFloor,
      },
    );
    return matchExpression(userExpression(must, scored, candidates), filters);
  }

  /** SQLite's plan for the statement a query runs (EXPLAIN QUERY PLAN details, outer loop first). */
  queryPlan(query: IndexQuery): string[] {
    const expression = this.matchExpressionFor(query) ?? '"nothing"';
    const statement = this.statementFor(query.sort, 0);
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`);
    const size = query.offset + query.limit;
    const parameters = this.knownDf
      ? [this.rankingBlob(query, this.phraseFrequencies(expression), 0), expression, size]
      : [expression, size];
    return (plan.all(...parameters) as Array<{ detail: string }>).map((row) => row.detail);
  }

  async findByKeys(keys: readonly string[]): Promise<Paper | null> {
    for (const key of keys) {
      const [owner] = this.owners(key);
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
    for (const { table } of this.shards)
      this.db.prepare(`INSERT INTO ${table} (${table}) VALUES ('optimize')`).run();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    if (this.db.open) this.db.close();
  }

  private upsertOne(paper: Paper, summary: UpsertSummary): void {
    const step = planUpsert(paper, (key) => this.owners(key));
    if (step.action === 'unchanged') {
      summary.unchanged += 1;
    } else if (step.action === 'insert') {
      const id = this.nextId;
      this.nextId += 1;
      this.stage(id, paper, step.keys);
      summary.inserted += 1;
    } else {
      for (const [id, other] of step.folded) this.remove(id, other, { deleteRow: true });
      this.remove(step.primaryId, step.primary, { deleteRow: false });
      this.stage(step.primaryId, step.merged, identityKeys(step.merged), step.json);
      summary.merged += 1;
    }
  }

  private statementFor(sort: IndexQuery['sort'], shard: number): Database.Statement {
    const statements = this.shards[shard] as ShardStatements;
    if (sort === 'cited_by_count') return statements.byCitations;
    if (sort === 'publication_date') return statements.byDate;
    return statements.byRelevance;
  }

  /** The shard record `id` lives in: stripes of `shardBlock` consecutive ids, dealt round. */
  private shardOf(id: number): ShardStatements {
    return this.shards[Math.floor((id - 1) / this.shardBlock) % this.shards.length] as ShardStatements;
  }

  /** Records (staged or stored) owning `key`, by id (hash collisions filtered out). */
  private owners(key: string): Array<[number, Paper]> {
    const owners: Array<[number, Paper]> = [];
    for (const id of this.statements.idsOfKey.all(keyHash(key)) as number[]) {
      const stored = this.records.get(id);
      if (stored && identityKeys(stored).includes(key)) owners.push([id, stored]);
    }
    return owners;
  }

  /** The new version of record `id`: its keys now, its block, row and full-text entry at `flush`. */
  private stage(id: number, paper: Paper, keys: string[], json?: string): void {
    this.records.stage(id, paper, json);
    for (const key of keys) this.statements.insertKey.run(keyHash(key), id);
  }

  /**
   * Takes the current version of record `id` out: its keys, and, when it is stored (not just
   * staged), its full-text entry, its year count and its block slot; with `deleteRow`, the paper
   * itself (folded into another).
   */
  private remove(id: number, current: Paper, options: { deleteRow: boolean }): void {
    for (const key of identityKeys(current)) this.statements.deleteKey.run(keyHash(key), id);
    if (this.records.isStaged(id)) {
      if (options.deleteRow) this.records.unstage(id);
      return;
    }
    this.shardOf(id).delete.run(id);
    this.countFacets(current, -1);
    const location = this.statements.location.get(id) as RecordLocation | undefined;
    if (location) this.records.release(location);
    if (options.deleteRow) this.statements.deletePaper.run(id);
  }

  /** Writes the staged versions: blocks, paper rows, full-text entries, year counts. */
  private flush(): void {
    for (const { id, paper, location } of this.records.flush()) {
      const row = paperColumns(paper);
      this.statements.putPaper.run(
        id,
        row.kind,
        row.year,
        row.published,
        row.citedByCount,
        row.reviewed ? 1 : 0,
        location.block,
        location.slot,
      );
      const text = indexedText(paper);
      this.shardOf(id).insert.run(
        id,
        text.title,
        text.abstract,
        text.authors,
        text.venue,
        text.extra,
        facetsFor(paper).join(' '),
      );
      this.countFacets(paper, 1);
    }
  }

  /** Records per facet token (cached until the data changes). */
  private counts(): Map<string, number> {
    this.facetCounts ??= new Map(this.statements.facetCounts.all() as Array<[string, number]>);
    return this.facetCounts;
  }

  private countFacets(paper: Paper, change: 1 | -1): void {
    for (const token of facetsFor(paper)) this.statements.countFacet.run(token, change);
  }

  /** Another connection (an ingest) committed: cached years and frequencies are stale. */
  private checkDataVersion(): void {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.seenDataVersion) {
      this.seenDataVersion = version;
      this.forgetCaches();
    }
  }

  private forgetCaches(): void {
    this.facetCounts = null;
    this.indexTotals = null;
    this.shardDocuments.clear();
    this.records.reset();
  }
}

function shardStatements(
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
    insert: db.prepare(
      `INSERT INTO ${table} (rowid, title, abstract, authors, venue, extra, facets) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    count: db.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`).pluck(),
    byRelevance: db.prepare(
      `SELECT rowid AS id, ${bm25()} AS score, NULL AS key FROM ${table} WHERE ${table} MATCH ? ORDER BY score LIMIT ?`,
    ),
    byCitations: sorted('cited_by_count'),
    byDate: sorted('published'),
  };
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

function shardKey(shard: number, phrase: string): string {
  return `${shard}\u0000${phrase}`;
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}
