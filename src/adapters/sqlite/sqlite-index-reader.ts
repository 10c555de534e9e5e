/**
 * The read side of the SQLite paper index, on one connection (the coordinator's, or a search
 * thread's read-only one): the shards' ranking statements, the MATCH expression a query runs
 * (clauses planned by the shared `planClauses`), the document-frequency, facet and totals caches
 * kept per data version, the known-df ranking blob, and the records of a page.
 */
import type Database from 'better-sqlite3';
import type { Paper } from '../../domain/paper.js';
import type { IndexPage, IndexQuery } from '../../ports/paper-index.js';
import { defaultFieldWeights, type FieldWeights } from '../paper-index/index-fields.js';
import { planClauses } from '../paper-index/query-plan.js';
import {
  frequencyBlob,
  ftsTotals,
  type IndexTotals,
  loadKnownDfBm25,
  phrasesOf,
  type RankedBy,
} from './bm25-known-df.js';
import { filterParts, matchExpression, quoteClause, userExpression } from './fts-expression.js';
import { ftsTable, readShardLayout } from './paper-index-migrations.js';
import { PaperRecordBlocks } from './paper-record-blocks.js';
import {
  mergeShardPages,
  type ShardPage,
  type ShardRow,
  type ShardStatements,
  shardStatements,
  statementForSort,
} from './sqlite-shard-statements.js';

/** How searches rank and count; the same on the coordinating connection and the search threads. */
export interface SqliteIndexReaderOptions {
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
  /**
   * `known-df` (default when the extension is built): BM25 with the phrases' document frequencies
   * kept per shard and data version (`alexandria_bm25`); `fts5`: FTS5's bm25(), which counts them
   * by walking every phrase's doclist on every search. Both give the same scores.
   */
  bm25?: 'known-df' | 'fts5';
}

/** The page of a query nothing can match. */
export const emptyPage: IndexPage = { papers: [], scores: [], total: 0, totalIsExact: true, ids: [] };

/** Read settings of an index connection: `mmapBytes` of the file memory-mapped (0: off), a 64 MiB page cache. */
export function tuneIndexConnection(db: Database.Database, mmapBytes = 2 ** 31): void {
  db.pragma(`mmap_size = ${Math.max(0, Math.floor(mmapBytes))}`);
  db.pragma('cache_size = -65536');
}

/**
 * Searches one index connection. WAL lets another connection write meanwhile; `PRAGMA
 * data_version` tells when another one committed, and the caches are then dropped.
 */
export class SqliteIndexReader {
  private readonly weights: FieldWeights;
  private readonly candidateBudget: number;
  private readonly countCap: number;
  private readonly commonFraction: number;
  private readonly commonFloor: number;
  private readonly shards: ShardStatements[];
  /** Ranking with `alexandria_bm25` and cached document frequencies (else FTS5's bm25()). */
  readonly knownDf: boolean;
  private readonly statements;
  /**
   * Records holding a phrase, per shard (`<shard>\0<phrase>`): counted on this connection, or by
   * the search threads for the coordinating one; cleared when the data changes.
   */
  private readonly shardDocuments = new Map<string, number>();
  private facetCounts: Map<string, number> | null = null;
  private indexTotals: IndexTotals | null = null;
  /** This connection's last `PRAGMA data_version` (it changes when another connection commits). */
  private seenDataVersion = -1;

  /** `records`: the connection's record blocks (shared with its writer, whose staged versions it sees). */
  constructor(
    private readonly db: Database.Database,
    options: SqliteIndexReaderOptions = {},
    readonly records = new PaperRecordBlocks(db),
  ) {
    this.weights = options.weights ?? defaultFieldWeights;
    this.candidateBudget = options.candidateBudget ?? 25_000;
    this.countCap = options.countCap ?? 10_000;
    this.commonFraction = options.commonFraction ?? 0.5;
    this.commonFloor = options.commonFloor ?? 1000;
    this.knownDf = options.bm25 !== 'fts5' && loadKnownDfBm25(db);
    const { shards } = readShardLayout(db);
    this.shards = Array.from({ length: shards }, (_, shard) =>
      shardStatements(db, ftsTable(shard), this.weights, this.knownDf),
    );
    this.statements = {
      facetCounts: db.prepare('SELECT token, records FROM facet_counts WHERE records > 0').raw(),
      rankedRows: db.prepare(this.knownDf ? 'SELECT alexandria_bm25_rows()' : 'SELECT 0').pluck(),
    };
  }

  /** Full-text shards of the file (fixed when it was created). */
  get shardCount(): number {
    return this.shards.length;
  }

  /** The full-text table of each shard, for benchmarks that run the same MATCH raw. */
  get shardTables(): string[] {
    return this.shards.map((shard) => shard.table);
  }

  /** The whole search on this connection, shard after shard. */
  searchHere(query: IndexQuery): IndexPage {
    const expression = this.matchExpressionFor(query);
    if (expression === null) return emptyPage;
    const frequencies = this.frequenciesFor(expression);
    const parts = this.shards.map((_, shard) => this.searchShard(query, expression, shard, frequencies));
    const { rows, total, totalIsExact } = mergeShardPages(parts, query);
    return {
      papers: query.withoutRecords ? [] : this.recordsOf(rows.map((row) => row.id)),
      scores: rows.map((row) => -row.score),
      total,
      totalIsExact,
      ids: rows.map((row) => row.id),
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
    const statement = statementForSort(this.shard(shard), query.sort);
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
    const counted = this.shard(shard).count.get(expression, cap) as number;
    return { rows, counted, exact: counted < cap };
  }

  /** Records of one shard holding each phrase (counted once per data version on this connection). */
  shardCounts(phrases: readonly string[], shard: number): number[] {
    this.checkDataVersion();
    return phrases.map((phrase) => this.documentsInShard(phrase, shard));
  }

  /** Of a query's clauses (as FTS5 strings), those some shard has no count for yet on this connection. */
  uncountedClauses(query: IndexQuery): string[] {
    this.checkDataVersion();
    const clauses = unique([...query.must, ...query.should].map(quoteClause));
    return clauses.filter((clause) =>
      this.shards.some((_, shard) => !this.shardDocuments.has(shardKey(shard, clause))),
    );
  }

  /** Takes one shard's counts of `phrases`, made elsewhere (by a search thread). */
  rememberCounts(phrases: readonly string[], shard: number, counts: readonly number[]): void {
    phrases.forEach((phrase, index) => {
      this.remember(shard, phrase, counts[index] ?? 0);
    });
  }

  /** Stored records by id, in that order (missing ones left out). */
  recordsOf(ids: readonly number[]): Paper[] {
    this.checkDataVersion();
    return this.records.getMany(ids);
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
    const statement = statementForSort(this.shard(0), query.sort);
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`);
    const size = query.offset + query.limit;
    const parameters = this.knownDf
      ? [this.rankingBlob(query, this.phraseFrequencies(expression), 0), expression, size]
      : [expression, size];
    return (plan.all(...parameters) as Array<{ detail: string }>).map((row) => row.detail);
  }

  /** What the shards of a search rank with: the expression's phrase frequencies with known-df, else nothing. */
  frequenciesFor(expression: string): number[] | undefined {
    return this.knownDf ? this.phraseFrequencies(expression) : undefined;
  }

  /** Another connection (an ingest) committed: cached years and frequencies are stale. */
  checkDataVersion(): void {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.seenDataVersion) {
      this.seenDataVersion = version;
      this.forgetCaches();
    }
  }

  /** Drops every cache (this connection wrote, or another one did). */
  forgetCaches(): void {
    this.facetCounts = null;
    this.indexTotals = null;
    this.shardDocuments.clear();
    this.records.reset();
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
    const counted = this.shard(shard).documents.get(phrase) as number;
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

  /** Records per facet token (cached until the data changes). */
  private counts(): Map<string, number> {
    this.facetCounts ??= new Map(this.statements.facetCounts.all() as Array<[string, number]>);
    return this.facetCounts;
  }

  private shard(shard: number): ShardStatements {
    return this.shards[shard] as ShardStatements;
  }
}

function shardKey(shard: number, phrase: string): string {
  return `${shard}\u0000${phrase}`;
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}
