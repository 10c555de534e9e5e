import { hash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { Piscina } from 'piscina';
import { AppError } from '../../domain/errors.js';
import { normalizeTitle } from '../../domain/identifiers.js';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { identifiersConflict, unitePapers } from '../../domain/paper-union.js';
import { isPatent, isPeerReviewed } from '../../domain/peer-review.js';
import { workerModule } from '../../platform/worker-file.js';
import type { IndexKind, IndexPage, IndexQuery, PaperIndex, UpsertSummary } from '../../ports/paper-index.js';
import { facetsOf, filterParts, matchExpression, quoteClause, userExpression } from './fts-expression.js';
import { openSqlite } from './open-sqlite.js';
import { defaultTokenizer, migratePaperIndex } from './paper-index-migrations.js';
import { PaperRecordBlocks, type RecordLocation } from './paper-record-blocks.js';
import { recordJson } from './paper-record-codec.js';
import type { SearchWorkerData } from './sqlite-search-worker.js';

/** BM25 weight of each text column (the `facets` column always weighs 0). */
export interface FieldWeights {
  title: number;
  abstract: number;
  authors: number;
  venue: number;
  extra: number;
}

/** Chosen on SciFact and known-title search (docs/decisions, search ranking). */
export const defaultFieldWeights: FieldWeights = {
  title: 3,
  abstract: 1,
  authors: 0.5,
  venue: 0.5,
  extra: 0.5,
};

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
  /** Matches are counted up to this number; beyond, the total is a lower bound (default 10 000). */
  countCap?: number;
  /** Bytes of the file SQLite may memory-map for reads (default 2 GiB; 0 turns it off). */
  mmapBytes?: number;
  /**
   * Worker threads that run searches on read-only connections of their own, so that a search over
   * a large index never blocks the event loop (default 0: searches run inline).
   */
  searchThreads?: number;
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
    migratePaperIndex(db, { tokenizer: options.tokenizer ?? defaultTokenizer });
    const { searchThreads = 0, ...readerOptions } = options;
    const pool =
      searchThreads > 0
        ? new Piscina<IndexQuery, IndexPage>({
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

const kindCodes: Record<IndexKind, number> = { paper: 0, patent: 1 };

interface PageRow {
  id: number;
  score: number;
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
  /** Document frequency (capped at the budget + 1) of each probed clause; cleared when the data changes. */
  private readonly frequencies = new Map<string, number>();
  private facetCounts: Map<string, number> | null = null;
  private dataVersion = -1;
  private readonly records: PaperRecordBlocks;
  /** The id the next new record gets (set under the write lock of each upsert). */
  private nextId = 1;

  constructor(
    private readonly db: Database.Database,
    options: SqlitePaperIndexOptions = {},
    private readonly pool?: Piscina<IndexQuery, IndexPage>,
  ) {
    this.records = new PaperRecordBlocks(db);
    this.weights = options.weights ?? defaultFieldWeights;
    this.candidateBudget = options.candidateBudget ?? 25_000;
    this.countCap = options.countCap ?? 10_000;
    this.commonFraction = options.commonFraction ?? 0.5;
    this.commonFloor = options.commonFloor ?? 1000;
    const w = this.weights;
    const bm25 = `bm25(papers_fts, ${[w.title, w.abstract, w.authors, w.venue, w.extra, 0].map(Number).join(', ')})`;
    this.statements = {
      putPaper: db.prepare(
        'INSERT OR REPLACE INTO papers (id, kind, year, published, cited_by_count, reviewed, block, slot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      deletePaper: db.prepare('DELETE FROM papers WHERE id = ?'),
      location: db.prepare('SELECT block, slot FROM papers WHERE id = ?'),
      lastId: db.prepare('SELECT coalesce(max(id), 0) FROM papers').pluck(),
      insertFts: db.prepare(
        'INSERT INTO papers_fts (rowid, title, abstract, authors, venue, extra, facets) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      deleteFts: db.prepare('DELETE FROM papers_fts WHERE rowid = ?'),
      insertKey: db.prepare('INSERT OR IGNORE INTO paper_keys (hash, paper_id) VALUES (?, ?)'),
      deleteKey: db.prepare('DELETE FROM paper_keys WHERE hash = ? AND paper_id = ?'),
      idsOfKey: db.prepare('SELECT paper_id FROM paper_keys WHERE hash = ?').pluck(),
      countFacet: db.prepare(
        'INSERT INTO facet_counts (token, records) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET records = records + excluded.records',
      ),
      facetCounts: db.prepare('SELECT token, records FROM facet_counts WHERE records > 0').raw(),
      counts: db.prepare('SELECT kind, count(*) AS n FROM papers GROUP BY kind'),
      probe: db
        .prepare('SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)')
        .pluck(),
      count: db
        .prepare('SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)')
        .pluck(),
      byRelevance: db.prepare(
        `SELECT rowid AS id, ${bm25} AS score FROM papers_fts WHERE papers_fts MATCH ? ORDER BY score LIMIT ? OFFSET ?`,
      ),
      byCitations: db.prepare(
        `SELECT papers_fts.rowid AS id, ${bm25} AS score FROM papers_fts CROSS JOIN papers ON papers.id = papers_fts.rowid
         WHERE papers_fts MATCH ? ORDER BY papers.cited_by_count IS NULL, papers.cited_by_count DESC, score LIMIT ? OFFSET ?`,
      ),
      byDate: db.prepare(
        `SELECT papers_fts.rowid AS id, ${bm25} AS score FROM papers_fts CROSS JOIN papers ON papers.id = papers_fts.rowid
         WHERE papers_fts MATCH ? ORDER BY papers.published IS NULL, papers.published DESC, score LIMIT ? OFFSET ?`,
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
        })
        .immediate();
    } finally {
      this.records.reset();
    }
    if (summary.inserted + summary.merged > 0) this.forgetCaches();
    return summary;
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    if (this.pool) return this.pool.run(query);
    const expression = this.matchExpressionFor(query);
    if (expression === null) return { papers: [], scores: [], total: 0, totalIsExact: true };
    const rows = this.statementFor(query.sort).all(expression, query.limit, query.offset) as PageRow[];
    const counted = this.statements.count.get(expression, this.countCap) as number;
    const total = Math.max(counted, rows.length > 0 ? query.offset + rows.length : 0);
    return {
      papers: this.records.getMany(rows.map((row) => row.id)),
      scores: rows.map((row) => -row.score),
      total,
      totalIsExact: counted < this.countCap,
    };
  }

  /**
   * The FTS5 MATCH expression a query runs (null when nothing can match): filters as facet clauses,
   * broad should-only queries narrowed to their selective clauses. Public for benchmarks and
   * debugging, which run it raw against the same file.
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
    const { candidates, scored } = this.selectiveClauses(should, must.length);
    return matchExpression(userExpression(must, scored, candidates), filters);
  }

  /** SQLite's plan for the statement a query runs (EXPLAIN QUERY PLAN details, outer loop first). */
  queryPlan(query: IndexQuery): string[] {
    const expression = this.matchExpressionFor(query) ?? '"nothing"';
    const statement = this.statementFor(query.sort);
    const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`);
    return (plan.all(expression, query.limit, query.offset) as Array<{ detail: string }>).map(
      (row) => row.detail,
    );
  }

  async findByKeys(keys: readonly string[]): Promise<Paper | null> {
    for (const key of keys) {
      const [owner] = this.owners(key);
      if (owner) return owner[1];
    }
    return null;
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
    this.db.prepare("INSERT INTO papers_fts (papers_fts) VALUES ('optimize')").run();
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    if (this.db.open) this.db.close();
  }

  private upsertOne(paper: Paper, summary: UpsertSummary): void {
    const untitled = !paper.title?.trim();
    const keys = identityKeys(paper);
    const matches = new Map<number, Paper>();
    for (const key of keys) {
      if (key.startsWith('title:')) continue;
      for (const [id, stored] of this.owners(key)) matches.set(id, stored);
    }
    const titleKey = keys.find((key) => key.startsWith('title:'));
    if (matches.size === 0 && titleKey && mergeableTitle(paper.title)) {
      for (const [id, stored] of this.owners(titleKey)) {
        if (!identifiersConflict(stored, paper)) {
          matches.set(id, stored);
          break;
        }
      }
    }
    if (matches.size === 0) {
      // An untitled record (S2 abstracts dataset rows) can only complete a stored paper.
      if (untitled) {
        throw new AppError('unprocessable', 'record has no title and matches no stored paper by identifier');
      }
      const id = this.nextId;
      this.nextId += 1;
      this.stage(id, paper, keys);
      summary.inserted += 1;
      return;
    }
    const [primaryId, ...otherIds] = [...matches.keys()].sort((a, b) => a - b) as [number, ...number[]];
    const primary = matches.get(primaryId) as Paper;
    let merged = primary;
    for (const id of otherIds) merged = unitePapers(merged, matches.get(id) as Paper);
    merged = unitePapers(merged, paper);
    const json = recordJson(merged);
    if (otherIds.length === 0 && json === recordJson(primary)) {
      summary.unchanged += 1;
      return;
    }
    for (const id of otherIds) this.remove(id, matches.get(id) as Paper, { deleteRow: true });
    this.remove(primaryId, primary, { deleteRow: false });
    this.stage(primaryId, merged, identityKeys(merged), json);
    summary.merged += 1;
  }

  private statementFor(sort: IndexQuery['sort']) {
    if (sort === 'cited_by_count') return this.statements.byCitations;
    if (sort === 'publication_date') return this.statements.byDate;
    return this.statements.byRelevance;
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
    this.statements.deleteFts.run(id);
    this.countFacets(current, -1);
    const location = this.statements.location.get(id) as RecordLocation | undefined;
    if (location) this.records.release(location);
    if (options.deleteRow) this.statements.deletePaper.run(id);
  }

  /** Writes the staged versions: blocks, paper rows, full-text entries, year counts. */
  private flush(): void {
    for (const { id, paper, location } of this.records.flush()) {
      const row = paperRow(paper);
      this.statements.putPaper.run(id, ...row, location.block, location.slot);
      this.statements.insertFts.run(id, ...ftsRow(paper));
      this.countFacets(paper, 1);
    }
  }

  /**
   * Which should clauses produce candidates and which score. Clauses in more than `commonFraction`
   * of the records are left out altogether: their IDF is low, and FTS5's bm25 reads the whole
   * doclist of every phrase it scores. Without must clauses, candidates are the rarest remaining
   * clauses while their document counts add up to at most the budget (always at least one); the
   * others still score, through the OR group.
   */
  private selectiveClauses(should: string[], mustCount: number): { candidates: string[]; scored: string[] } {
    if (should.length === 0) return { candidates: should, scored: should };
    const records = [...this.counts().entries()].reduce(
      (sum, [token, count]) => (token.startsWith('zzk') ? sum + count : sum),
      0,
    );
    const common = Math.max(this.commonFloor, Math.floor(records * this.commonFraction));
    const cap = Math.max(common, this.candidateBudget) + 1;
    const frequency = (clause: string) => {
      let value = this.frequencies.get(clause);
      if (value === undefined) {
        value = this.statements.probe.get(clause, cap) as number;
        if (this.frequencies.size > 50_000) this.frequencies.clear();
        this.frequencies.set(clause, value);
      }
      return value;
    };
    const ranked = should
      .map((clause) => ({ clause, rows: frequency(clause) }))
      .sort((a, b) => a.rows - b.rows);
    // A query of common words only keeps them all (dropping them would change what it asks).
    const rare = ranked.filter((entry) => entry.rows <= common);
    const kept = rare.length > 0 ? rare : ranked;
    const scored = should.filter((clause) => kept.some((entry) => entry.clause === clause));
    if (mustCount > 0) return { candidates: scored, scored };
    const candidates: string[] = [];
    let rows = 0;
    for (const entry of kept) {
      if (candidates.length > 0 && rows + entry.rows > this.candidateBudget) break;
      candidates.push(entry.clause);
      rows += entry.rows;
    }
    return { candidates, scored };
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
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.forgetCaches();
    }
  }

  private forgetCaches(): void {
    this.facetCounts = null;
    this.frequencies.clear();
    this.records.reset();
  }
}

/** 48 bits of SHA-1: a compact integer key; collisions are resolved by checking the stored record. */
function keyHash(key: string): number {
  return hash('sha1', key, 'buffer').readUIntBE(0, 6);
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}

/** Titles too generic to identify a paper on their own ("Introduction", "Preface") never merge. */
function mergeableTitle(title: string): boolean {
  const normalized = normalizeTitle(title);
  return normalized.length >= 20 || normalized.split(' ').length >= 4;
}

const isoPrefix = /^\d{4}(-\d{2}(-\d{2})?)?/;

/** kind, year, published (sortable ISO text), cited_by_count, reviewed. */
function paperRow(paper: Paper): [number, number | null, string | null, number | null, number] {
  const date = paper.publication_date ? isoPrefix.exec(paper.publication_date)?.[0] : undefined;
  const year = paper.year ?? (date ? Number(date.slice(0, 4)) : null);
  return [
    isPatent(paper) ? kindCodes.patent : kindCodes.paper,
    year,
    date ?? (year !== null ? String(year) : null),
    paper.cited_by_count ?? null,
    isPeerReviewed(paper) ? 1 : 0,
  ];
}

/** The facet tokens of a record (kind, year, reviewed). */
function facetsFor(paper: Paper): string[] {
  const [kind, year, , , reviewed] = paperRow(paper);
  return facetsOf(kind === kindCodes.patent ? 'patent' : 'paper', year, reviewed === 1);
}

/** title, abstract, authors, venue, extra (identifiers, assignees), facets. */
function ftsRow(paper: Paper): string[] {
  const ids = paper.identifiers ?? {};
  const patentNumber = paper.patent_number ?? ids.patent_number ?? null;
  const extra = [
    paper.doi ?? ids.doi,
    ids.arxiv,
    ids.pmid,
    ids.pmcid,
    ids.acl,
    ids.openalex,
    patentNumber,
    patentNumber?.replace(/\D/g, ''),
    ...(paper.assignees ?? []),
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
  return [
    paper.title,
    paper.abstract ?? '',
    paper.authors.join('; '),
    paper.venue ?? '',
    extra.join(' ; '),
    facetsFor(paper).join(' '),
  ];
}
