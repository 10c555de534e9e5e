import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type {
  IndexClause,
  IndexPage,
  IndexQuery,
  IndexStats,
  PaperIndex,
  RecordToEmbed,
  RecordVectorEntry,
  UpsertSummary,
} from '../../ports/paper-index.js';
import {
  bm25Idf,
  defaultFieldWeights,
  type FieldWeights,
  keyHash,
  kindCodes,
} from '../paper-index/index-fields.js';
import {
  defaultPlanOptions,
  type PlanOptions,
  planClauses,
  scoredPhrases,
} from '../paper-index/query-plan.js';
import { decodeRecordVector, encodeRecordVector } from '../paper-index/record-vector-codec.js';
import { planUpsert } from '../paper-index/upsert-plan.js';
import { Batch, decodeRecord, vectorOf } from './postgres-index-writes.js';
import { RecordPreparer } from './postgres-inverted-prepare.js';
import { InvertedSearch } from './postgres-inverted-search.js';
import { InvertedBatch } from './postgres-inverted-writes.js';
import { migratePostgresPaperIndex, type PostgresIndexLayout } from './postgres-paper-index-schema.js';
import { documentVector, quoteLexeme } from './postgres-paper-vector.js';
import {
  type ConnectionErrorSummary,
  createPostgresPool,
  type PostgresPoolHealth,
  type PostgresPoolSettings,
} from './postgres-pool.js';
import { StandbyRouter, type StandbyRoutingOptions } from './standby-router.js';
import { inTransaction } from './transaction.js';

export interface PostgresPaperIndexOptions {
  /** PostgreSQL schema of the index tables (created if absent); default: the connection's search_path. */
  schema?: string;
  /** Read replicas (streaming standbys of the primary) that take searches, round robin. */
  readUrls?: readonly string[];
  weights?: FieldWeights;
  plan?: Partial<PlanOptions>;
  maxConnections?: number;
  /** Timeouts and size of every pool (ALEXANDRIA_DATABASE_*); `maxConnections` wins for the size. */
  pool?: PostgresPoolSettings;
  /** How the read replicas are watched and skipped (see `StandbyRouter`). */
  standby?: StandbyRoutingOptions;
  /**
   * How a new index stores its text: `tsvector` (when omitted here) or `inverted` (posting lists of
   * the extension's own; decision 0024). The application passes ALEXANDRIA_PG_INDEX_LAYOUT (default
   * `inverted`). An existing index keeps its own.
   */
  layout?: PostgresIndexLayout;
  /**
   * Told of an error on an idle pooled connection (the server restarted, failed over, or ended the
   * connection). The pool drops that connection and opens another on the next query; without a
   * listener the error would end the process.
   */
  onConnectionError?: (error: ConnectionErrorSummary) => void;
  /** Told of outages and reconnections (dependency health). */
  health?: PostgresPoolHealth;
}

/** Tsvector weight labels per field (D is unused: facets live in columns here). */
interface StatsRow {
  data_version: string;
  records: string;
  tokens: string;
}

/**
 * The paper index on PostgreSQL, shared by every replica (docs/decisions/0024). Records are rows
 * with their filter and sort columns, a tsvector written by Alexandria (its own tokeniser: the
 * SQLite index's, stemmed alike; fields told apart by weight labels) under a GIN index, and the
 * record itself (deflated canonical JSON). Ranking is the SQLite index's BM25 — same formula,
 * parameters, field weights, phrase counting and whole-index statistics — computed by the
 * `alexandria_pg` extension (native/postgres). Document frequencies of words and the index's
 * record and token totals are kept in tables written in the same transaction as the records.
 * Writes are serialised by a transaction-level advisory lock; searches may go to read replicas.
 */
export async function createPostgresPaperIndex(
  connectionString: string,
  options: PostgresPaperIndexOptions = {},
): Promise<PostgresPaperIndex> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid schema name ${schema}`);
  }
  // Only the primary's outages are the database's (a standby's are skipped: StandbyRouter).
  const poolOf = (url: string, health?: PostgresPoolHealth) =>
    createPostgresPool(
      url,
      {
        ...options.pool,
        maxConnections: options.maxConnections ?? options.pool?.maxConnections,
        // JIT compiling a ranking statement costs more than it saves at these sizes.
        serverOptions: `-c jit=off${schema ? ` -c search_path=${schema},public` : ''}`,
      },
      options.onConnectionError,
      health,
    );
  const primary = poolOf(connectionString, options.health);
  const replicas = (options.readUrls ?? []).map((url) => poolOf(url));
  try {
    const migrated = await migratePostgresPaperIndex(primary, schema, options.layout);
    return new PostgresPaperIndex(
      primary,
      replicas,
      { ...options, layout: migrated.layout },
      migrated.schema,
    );
  } catch (error) {
    await Promise.all([primary, ...replicas].map((pool) => pool.end()));
    throw error;
  }
}

export class PostgresPaperIndex implements PaperIndex {
  private readonly weights: number[];
  private readonly plan: PlanOptions;
  /** Whole-index document counts of clauses (a lexeme or a phrase's lexemes), for one data version. */
  private documents = new Map<string, number>();
  private documentsVersion = '';
  private indexId: string | undefined;
  /** Which database answers a read: a caught-up, answering standby, else the primary. */
  private readonly router: StandbyRouter;
  /** Searches answered by the primary and by read replicas (for metrics and tests). */
  readonly searchesServed = { primary: 0, replicas: 0 };
  /** The layout this index was created with. */
  readonly layout: PostgresIndexLayout;
  private readonly inverted: InvertedSearch | undefined;
  /** Tokenises and deflates the inverted layout's records ahead of their write (its own thread). */
  private readonly preparer = new RecordPreparer();

  constructor(
    private readonly primary: pg.Pool,
    private readonly replicas: pg.Pool[],
    options: PostgresPaperIndexOptions,
    /** The schema of the index's tables, as found by the migration (the extension's search is given it). */
    tablesSchema: string,
  ) {
    const w = options.weights ?? defaultFieldWeights;
    if (w.authors !== w.venue || w.venue !== w.extra) {
      throw new Error('The PostgreSQL index weighs authors, venue and identifiers alike (one label)');
    }
    // Label codes 0–3 are D, C, B, A: D unused, C authors/venue/identifiers, B abstract, A title.
    this.weights = [0, w.authors, w.abstract, w.title];
    this.plan = { ...defaultPlanOptions, ...options.plan };
    this.router = new StandbyRouter(primary, replicas, options.standby);
    this.layout = options.layout ?? 'tsvector';
    if (this.layout === 'inverted')
      this.inverted = new InvertedSearch([w.title, w.abstract, w.authors], this.plan, tablesSchema);
  }

  /**
   * Tokenises the records (CPU work, in slices that let an earlier call's transaction go on issuing
   * its statements meanwhile), then writes them after this process's earlier upserts, in call order:
   * a caller may keep one batch in flight while it prepares the next.
   */
  async upsert(papers: readonly Paper[]): Promise<UpsertSummary> {
    let prepared: Promise<void> = Promise.resolve();
    if (this.layout === 'inverted') prepared = this.preparer.prepare(papers);
    else for (const paper of papers) vectorOf(paper);
    const previous = this.writes;
    const run = prepared.then(() => previous).then(() => this.write(papers));
    this.writes = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private writes: Promise<void> = Promise.resolve();

  private async write(papers: readonly Paper[]): Promise<UpsertSummary> {
    const summary: UpsertSummary = { inserted: 0, merged: 0, unchanged: 0 };
    if (papers.length === 0) return summary;
    await inTransaction(this.primary, async (client) => {
      // One writer at a time: ids, key ownership and the statistics stay consistent.
      await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.paper_index'))");
      const batch =
        this.layout === 'inverted'
          ? await InvertedBatch.load(client, papers)
          : await Batch.load(client, papers);
      for (const paper of papers) {
        const step = planUpsert(paper, (key) => batch.owners(key));
        if (step.action === 'unchanged') summary.unchanged += 1;
        else if (step.action === 'insert') {
          batch.insert(paper, step.keys);
          summary.inserted += 1;
        } else {
          for (const [id, other] of step.folded) batch.remove(id, other, true);
          batch.remove(step.primaryId, step.primary, false);
          batch.put(step.primaryId, step.merged, identityKeys(step.merged), step.json);
          summary.merged += 1;
        }
      }
      if (summary.inserted + summary.merged > 0) await batch.write(client);
    });
    return summary;
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    const { value, pool } = await this.router.read((reader) => this.searchOn(reader, query));
    if (pool === this.primary) this.searchesServed.primary += 1;
    else this.searchesServed.replicas += 1;
    return value;
  }

  private async searchOn(pool: pg.Pool, query: IndexQuery): Promise<IndexPage> {
    const client = await pool.connect();
    if (this.inverted) {
      // One snapshot for the statistics, the ranking and the page's records: a record whose text
      // changes meanwhile moves to a new document number.
      const inverted = this.inverted;
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const page = await inverted.search(client, query, await readStats(client));
        await client.query('COMMIT');
        return page;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    try {
      const stats = await readStats(client);
      if (stats.data_version !== this.documentsVersion) {
        this.documents = new Map();
        this.documentsVersion = stats.data_version;
      }
      const records = Number(stats.records);
      // Clauses are told apart by their text, as in the SQLite index's MATCH expression: "death" and
      // "deaths" are two phrases (both scored) even though they stem alike.
      const lexemes = new Map<string, string>();
      const textOf = (clause: IndexClause): string | null => {
        const text = clause.text.trim();
        const words = documentVector.lexemesOf(text);
        if (words.length === 0) return null;
        lexemes.set(text, words.join(' '));
        return text;
      };
      const must = unique(query.must.map(textOf));
      const should = unique(query.should.map(textOf)).filter((clause) => !must.includes(clause));
      if (must.length === 0 && should.length === 0) return emptyPage();
      const lexemesOf = (text: string) => lexemes.get(text) as string;
      await this.countClauses(client, [...must, ...should].map(lexemesOf));
      const documents = (text: string) => this.documents.get(lexemesOf(text)) ?? 0;
      const plan = planClauses(must, should, documents, records, this.plan);
      const phrases = scoredPhrases(plan);
      const idf = phrases.map((phrase) => bm25Idf(records, documents(phrase)));
      const match =
        plan.must.length > 0
          ? plan.must.map((text) => tsqueryOf(lexemesOf(text))).join(' & ')
          : plan.candidates.map((text) => tsqueryOf(lexemesOf(text))).join(' | ');
      // The match and filters ($1…) come first, so that a count can reuse them alone.
      const where: unknown[] = [match, kindCodes[query.kind]];
      const filters = ['terms @@ $1::tsquery', 'kind = $2'];
      if (query.peerReviewedOnly) filters.push('reviewed');
      if (query.startYear !== undefined) {
        where.push(query.startYear);
        filters.push(`year >= $${where.length}`);
      }
      if (query.endYear !== undefined) {
        where.push(query.endYear);
        filters.push(`year <= $${where.length}`);
      }
      const avgdl = records > 0 ? Number(stats.tokens) / records : 1;
      const parameters = [
        ...where,
        phrases.map(lexemesOf),
        idf,
        this.weights,
        avgdl,
        query.limit,
        query.offset,
      ];
      const at = (n: number) => `$${where.length + n}`;
      const key =
        query.sort === 'cited_by_count'
          ? 'cited_by_count'
          : query.sort === 'publication_date'
            ? 'published'
            : null;
      const order = key ? 'key DESC NULLS LAST, score DESC, id' : 'score DESC, id';
      // Every match is scored once into a small materialised set (id, score, key); the page and the
      // total come from it (a window count would carry each row's tsvector through a spill).
      const result = await client.query<{ id: string; score: number; total: string }>(
        `WITH matched AS MATERIALIZED (
           SELECT id, alexandria_bm25(terms, ${at(1)}::text[], ${at(2)}::float8[], ${at(3)}::float8[], doclen,
                                      ${at(4)}::float8) AS score,
                  ${key ?? 'NULL::int'} AS key
           FROM paper_records WHERE ${filters.join(' AND ')})
         SELECT id, score, (SELECT count(*) FROM matched) AS total FROM matched
         ORDER BY ${order} LIMIT ${at(5)} OFFSET ${at(6)}`,
        parameters,
      );
      const found = query.withoutRecords
        ? result.rows.map((row): [number, Paper | undefined] => [Number(row.id), undefined])
        : await recordsOf(
            client,
            result.rows.map((row) => Number(row.id)),
          );
      const papers = found.flatMap(([, paper]) => (paper ? [paper] : []));
      const ids = found.map(([id]) => id);
      const scoreOf = new Map(result.rows.map((row) => [Number(row.id), Number(row.score)]));
      let total = Number(result.rows[0]?.total ?? 0);
      if (result.rows.length === 0 && query.offset > 0) {
        // A page past the end: the window function saw no row; count the matches themselves.
        const counted = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM paper_records WHERE ${filters.join(' AND ')}`,
          where,
        );
        total = Number(counted.rows[0]?.n ?? 0);
      }
      const scores = ids.map((id) => scoreOf.get(id) ?? 0);
      return { papers, scores, total, totalIsExact: true, ids };
    } finally {
      client.release();
    }
  }

  /** Counts (once per data version) the records holding each clause: words from the term table, phrases by matching. */
  private async countClauses(client: pg.PoolClient, clauses: string[]): Promise<void> {
    const missing = clauses.filter((clause) => !this.documents.has(clause));
    if (missing.length === 0) return;
    const words = missing.filter((clause) => !clause.includes(' '));
    if (words.length > 0) {
      const found = await client.query<{ lexeme: string; records: number }>(
        'SELECT lexeme, records FROM paper_terms WHERE lexeme = ANY($1::text[])',
        [words],
      );
      for (const word of words) this.documents.set(word, 0);
      for (const row of found.rows) this.documents.set(row.lexeme, row.records);
    }
    for (const phrase of missing.filter((clause) => clause.includes(' '))) {
      const counted = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM paper_records WHERE terms @@ $1::tsquery',
        [tsqueryOf(phrase)],
      );
      this.documents.set(phrase, Number(counted.rows[0]?.n ?? 0));
    }
    if (this.documents.size > 100_000) this.documents.clear();
  }

  async findByKeys(keys: readonly string[]): Promise<Paper | null> {
    if (keys.length === 0) return null;
    const found = await this.primary.query<{ id: string; hash: string; record: Buffer }>(
      `SELECT k.hash, r.id, r.record FROM paper_keys k JOIN paper_records r ON r.id = k.paper_id
       WHERE k.hash = ANY($1::bigint[])`,
      [keys.map(keyHash)],
    );
    for (const key of keys) {
      const hash = String(keyHash(key));
      for (const row of found.rows) {
        if (row.hash !== hash) continue;
        const paper = decodeRecord(row.record);
        if (identityKeys(paper).includes(key)) return paper;
      }
    }
    return null;
  }

  async dataVersion(): Promise<string> {
    if (!this.indexId) {
      const found = await this.primary.query<{ value: string }>(
        "SELECT value FROM paper_index_settings WHERE name = 'index_id'",
      );
      this.indexId = found.rows[0]?.value ?? 'unknown';
    }
    const stats = await this.primary.query<StatsRow>('SELECT data_version FROM paper_index_stats');
    return `${this.indexId}.${stats.rows[0]?.data_version ?? '0'}`;
  }

  async count(): Promise<{ papers: number; patents: number }> {
    const found = await this.primary.query<{ kind: number; n: string }>(
      'SELECT kind, count(*) AS n FROM paper_records GROUP BY kind',
    );
    const counts = { papers: 0, patents: 0 };
    for (const row of found.rows) {
      if (row.kind === kindCodes.patent) counts.patents = Number(row.n);
      else counts.papers += Number(row.n);
    }
    return counts;
  }

  /**
   * tsvector layout: moves GIN's pending entries into the main index and refreshes the planner's
   * statistics. Inverted layout: vacuums the rows every batch rewrites (word tails, metadata rows).
   */
  async optimize(): Promise<void> {
    if (this.layout === 'inverted') {
      // Tails and metadata rows are rewritten by every batch: reclaim their old versions.
      await this.primary.query('VACUUM (ANALYZE) paper_words, paper_postings, paper_docs, paper_records');
      return;
    }
    await this.primary.query("SELECT gin_clean_pending_list('paper_records_terms'::regclass)");
    await this.primary.query('ANALYZE paper_records');
  }

  /** Records above `afterId` without a vector for `model`; the stamp is the row version (`xmin`). */
  async recordsWithoutVectors(model: string, afterId: number, limit: number): Promise<RecordToEmbed[]> {
    const found = await this.primary.query<{ id: string; stamp: string; record: Buffer }>(
      `SELECT r.id, r.xmin::text AS stamp, r.record FROM paper_records r
       WHERE r.id > $1 AND NOT EXISTS (SELECT 1 FROM paper_record_vectors v WHERE v.id = r.id AND v.model = $2)
       ORDER BY r.id LIMIT $3`,
      [afterId, model, limit],
    );
    return found.rows.map((row) => ({
      id: Number(row.id),
      stamp: row.stamp,
      paper: decodeRecord(row.record),
    }));
  }

  async recordsByIds(ids: readonly number[]): Promise<Map<number, Paper>> {
    const { value } = await this.router.read(async (pool) => {
      const client = await pool.connect();
      try {
        return new Map(await recordsOf(client, [...ids]));
      } finally {
        client.release();
      }
    });
    return value;
  }

  /** Stores the entries whose record row is still the version embedded (same `xmin`). */
  async putRecordVectors(model: string, entries: readonly RecordVectorEntry[]): Promise<number> {
    if (entries.length === 0) return 0;
    const stored = await this.primary.query(
      `INSERT INTO paper_record_vectors (id, model, vector)
       SELECT e.id, $1, e.vector FROM unnest($2::bigint[], $3::text[], $4::bytea[]) AS e (id, stamp, vector)
       JOIN paper_records r ON r.id = e.id AND r.xmin::text = e.stamp
       ON CONFLICT (id, model) DO UPDATE SET vector = excluded.vector`,
      [
        model,
        entries.map((entry) => entry.id),
        entries.map((entry) => entry.stamp),
        entries.map((entry) => encodeRecordVector(entry.vector)),
      ],
    );
    return stored.rowCount ?? 0;
  }

  async recordVectors(model: string, ids: readonly number[]): Promise<Map<number, Float32Array>> {
    const vectors = new Map<number, Float32Array>();
    if (ids.length === 0) return vectors;
    const { value: found } = await this.router.read((pool) =>
      pool.query<{ id: string; vector: Buffer }>(
        'SELECT id, vector FROM paper_record_vectors WHERE model = $1 AND id = ANY($2::bigint[])',
        [model, [...ids]],
      ),
    );
    for (const row of found.rows) vectors.set(Number(row.id), decodeRecordVector(row.vector));
    return vectors;
  }

  async vectorCoverage(model: string): Promise<{ withVectors: number; records: number }> {
    const found = await this.primary.query<{ covered: string; records: string }>(
      `SELECT (SELECT count(*) FROM paper_record_vectors WHERE model = $1) AS covered,
              (SELECT records FROM paper_index_stats) AS records`,
      [model],
    );
    const row = found.rows[0];
    return { withVectors: Number(row?.covered ?? 0), records: Number(row?.records ?? 0) };
  }

  /** The record total from the statistics row every write keeps; one model's vectors counted. */
  async stats(vectorModel?: string): Promise<IndexStats> {
    if (vectorModel === undefined) {
      const found = await this.primary.query<{ records: string }>('SELECT records FROM paper_index_stats');
      return { records: Number(found.rows[0]?.records ?? 0) };
    }
    const { withVectors, records } = await this.vectorCoverage(vectorModel);
    return {
      records,
      vectors: { model: vectorModel, stored: withVectors, pending: Math.max(0, records - withVectors) },
    };
  }

  async ping(): Promise<void> {
    await this.primary.query('SELECT 1 FROM paper_index_stats');
  }

  async close(): Promise<void> {
    await this.preparer.close();
    await Promise.all([this.primary, ...this.replicas].map((pool) => pool.end()));
  }
}

async function readStats(client: pg.PoolClient): Promise<StatsRow> {
  const found = await client.query<StatsRow>('SELECT data_version, records, tokens FROM paper_index_stats');
  return found.rows[0] ?? { data_version: '0', records: '0', tokens: '0' };
}

/** The records of these ids that exist, in that order, with their ids. */
async function recordsOf(client: pg.PoolClient, ids: number[]): Promise<Array<[number, Paper]>> {
  if (ids.length === 0) return [];
  const found = await client.query<{ id: string; record: Buffer }>(
    'SELECT id, record FROM paper_records WHERE id = ANY($1::bigint[])',
    [ids],
  );
  const byId = new Map(found.rows.map((row) => [Number(row.id), decodeRecord(row.record)]));
  return ids.flatMap((id): Array<[number, Paper]> => {
    const paper = byId.get(id);
    return paper ? [[id, paper]] : [];
  });
}

/** A clause as tsquery text: a lexeme, or its lexemes in a row. */
function tsqueryOf(clause: string): string {
  const lexemes = clause.split(' ').map(quoteLexeme);
  return lexemes.length === 1 ? (lexemes[0] as string) : `(${lexemes.join(' <-> ')})`;
}

function unique(values: (string | null)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== null))];
}

function emptyPage(): IndexPage {
  return { papers: [], scores: [], total: 0, totalIsExact: true, ids: [] };
}
