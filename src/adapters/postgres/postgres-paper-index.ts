import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type {
  IndexPage,
  IndexQuery,
  IndexStats,
  PaperIndex,
  RecordToEmbed,
  RecordVectorEntry,
  UpsertSummary,
} from '../../ports/paper-index.js';
import { defaultFieldWeights, type FieldWeights, keyHash, kindCodes } from '../paper-index/index-fields.js';
import { defaultPlanOptions, type PlanOptions } from '../paper-index/query-plan.js';
import { decodeRecordVector, encodeRecordVector } from '../paper-index/record-vector-codec.js';
import { planUpsert } from '../paper-index/upsert-plan.js';
import { compactTombstones } from './postgres-compaction.js';
import { decodeRecord, RecordPreparer } from './postgres-inverted-prepare.js';
import { InvertedSearch } from './postgres-inverted-search.js';
import { InvertedBatch } from './postgres-inverted-writes.js';
import { migratePostgresPaperIndex } from './postgres-paper-index-schema.js';
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
   * Told when opening converted an index created with the former tsvector layout (decision 0058):
   * how many records were indexed again and how long it took.
   */
  onConversion?: (conversion: { records: number; ms: number }) => void;
  /**
   * Told of an error on an idle pooled connection (the server restarted, failed over, or ended the
   * connection). The pool drops that connection and opens another on the next query; without a
   * listener the error would end the process.
   */
  onConnectionError?: (error: ConnectionErrorSummary) => void;
  /** Told of outages and reconnections (dependency health). */
  health?: PostgresPoolHealth;
}

interface StatsRow {
  data_version: string;
  records: string;
  tokens: string;
}

/**
 * The paper index on PostgreSQL, shared by every replica (docs/decisions/0024, 0058). Records are
 * rows with their filter and sort columns and the record itself (deflated canonical JSON) under a
 * document number; their words (the SQLite index's tokeniser and stemmer) are posting lists of the
 * `alexandria_pg` extension's format (native/postgres), which matches, filters and ranks them: the
 * SQLite index's BM25 — same formula, parameters, field weights, phrase counting and whole-index
 * statistics. Document frequencies and the index's record and token totals are written in the same
 * transaction as the records. Writes are serialised by a transaction-level advisory lock; searches
 * may go to read replicas.
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
    const started = performance.now();
    const migrated = await migratePostgresPaperIndex(primary, schema);
    if (migrated.converted !== null)
      options.onConversion?.({ records: migrated.converted, ms: performance.now() - started });
    return new PostgresPaperIndex(primary, replicas, options, migrated.schema);
  } catch (error) {
    await Promise.all([primary, ...replicas].map((pool) => pool.end()));
    throw error;
  }
}

export class PostgresPaperIndex implements PaperIndex {
  private indexId: string | undefined;
  /** Which database answers a read: a caught-up, answering standby, else the primary. */
  private readonly router: StandbyRouter;
  /** Searches answered by the primary and by read replicas (for metrics and tests). */
  readonly searchesServed = { primary: 0, replicas: 0 };
  /** Plans a query and runs it in the extension over the posting lists. */
  private readonly searcher: InvertedSearch;
  /** Tokenises and deflates the records ahead of their write (its own thread). */
  private readonly preparer = new RecordPreparer();

  constructor(
    private readonly primary: pg.Pool,
    private readonly replicas: pg.Pool[],
    options: PostgresPaperIndexOptions,
    /** The schema of the index's tables, as found by the migration (the extension's search is given it). */
    private readonly tablesSchema: string,
  ) {
    const w = options.weights ?? defaultFieldWeights;
    if (w.authors !== w.venue || w.venue !== w.extra) {
      throw new Error('The PostgreSQL index weighs authors, venue and identifiers alike (one field)');
    }
    const plan = { ...defaultPlanOptions, ...options.plan };
    this.router = new StandbyRouter(primary, replicas, options.standby);
    this.searcher = new InvertedSearch([w.title, w.abstract, w.authors], plan, tablesSchema);
  }

  /**
   * Tokenises the records (CPU work, in slices that let an earlier call's transaction go on issuing
   * its statements meanwhile), then writes them after this process's earlier upserts, in call order:
   * a caller may keep one batch in flight while it prepares the next.
   */
  async upsert(papers: readonly Paper[]): Promise<UpsertSummary> {
    const prepared = this.preparer.prepare(papers);
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
      const batch = await InvertedBatch.load(client, papers);
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

  /**
   * One snapshot for the statistics, the ranking and the page's records: a record whose text
   * changes meanwhile moves to a new document number.
   */
  private async searchOn(pool: pg.Pool, query: IndexQuery): Promise<IndexPage> {
    const client = await pool.connect();
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const page = await this.searcher.search(client, query, await readStats(client));
      await client.query('COMMIT');
      return page;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
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
   * Removes the postings of deleted and replaced records (alexandria_pg 1.4, decision 0067), then
   * vacuums the rows every batch rewrites (word tails, metadata rows) and refreshes statistics.
   */
  async optimize(): Promise<void> {
    await compactTombstones(this.primary, this.tablesSchema);
    await this.primary.query('VACUUM (ANALYZE) paper_words, paper_postings, paper_docs, paper_records');
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
