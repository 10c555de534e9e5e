import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { indexedText, keyHash, paperColumns } from '../paper-index/index-fields.js';
import { documentVector, type VectorDocument } from './postgres-paper-vector.js';
import { StagedRecords } from './postgres-staged-records.js';
import { RecordMemo } from './record-memo.js';

/**
 * The write side of the PostgreSQL paper index (docs/decisions/0024): one upsert's working set and
 * what it writes — records, identity keys, word frequencies and totals — in the caller's transaction.
 */

/**
 * One upsert's working set: the stored records owning any key of the batch (read once, locked by
 * the advisory lock), the versions staged so far, and the changes to write at the end.
 */
export class Batch extends StagedRecords {
  /** Document-frequency changes per lexeme, and record/token totals. */
  private readonly termChanges = new Map<string, number>();
  private recordChange = 0;
  private tokenChange = 0;

  private constructor(nextId: number) {
    super(nextId);
  }

  static async load(client: pg.PoolClient, papers: readonly Paper[]): Promise<Batch> {
    const stats = await client.query<{ next_id: string }>('SELECT next_id FROM paper_index_stats');
    const batch = new Batch(Number(stats.rows[0]?.next_id ?? 1));
    const hashes = [...new Set(papers.flatMap((paper) => identityKeys(paper).map(keyHash)))];
    const found = await client.query<{ hash: string; id: string; record: Buffer }>(
      `SELECT k.hash, r.id, r.record FROM paper_keys k JOIN paper_records r ON r.id = k.paper_id
       WHERE k.hash = ANY($1::bigint[])`,
      [hashes],
    );
    for (const hash of hashes) batch.keyOwners.set(hash, new Set());
    for (const row of found.rows) {
      const id = Number(row.id);
      batch.keyOwners.get(Number(row.hash))?.add(id);
      if (!batch.records.has(id)) batch.records.set(id, decodeRecord(row.record));
    }
    return batch;
  }

  override put(id: number, paper: Paper, keys: string[], json: string): void {
    super.put(id, paper, keys, json);
    this.count(paper, 1);
  }

  override remove(id: number, current: Paper, deleteRow: boolean): void {
    this.count(current, -1);
    super.remove(id, current, deleteRow);
  }

  private count(paper: Paper, change: 1 | -1): void {
    const vector = vectorOf(paper);
    this.recordChange += change;
    this.tokenChange += change * vector.length;
    for (const lexeme of vector.lexemes)
      this.termChanges.set(lexeme, (this.termChanges.get(lexeme) ?? 0) + change);
  }

  async write(client: pg.PoolClient): Promise<void> {
    await this.writeRemovals(client);
    const rows = this.stagedInOrder();
    if (rows.length > 0) {
      const columns = rows.map(([id, { paper, json }]) => {
        const vector = vectorOf(paper);
        return { id, columns: paperColumns(paper), vector, record: deflateRawSync(json) };
      });
      await client.query(
        `INSERT INTO paper_records (id, kind, year, published, cited_by_count, reviewed, doclen, terms, record)
         SELECT * FROM unnest($1::bigint[], $2::int2[], $3::int4[], $4::text[], $5::int8[], $6::bool[], $7::int4[],
                              $8::tsvector[], $9::bytea[])
         ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, year = excluded.year, published = excluded.published,
           cited_by_count = excluded.cited_by_count, reviewed = excluded.reviewed, doclen = excluded.doclen,
           terms = excluded.terms, record = excluded.record`,
        [
          columns.map((row) => row.id),
          columns.map((row) => row.columns.kind),
          columns.map((row) => row.columns.year),
          columns.map((row) => row.columns.published),
          columns.map((row) => row.columns.citedByCount),
          columns.map((row) => row.columns.reviewed),
          columns.map((row) => row.vector.length),
          columns.map((row) => row.vector.text),
          columns.map((row) => row.record),
        ],
      );
      await this.writeKeys(client, rows);
    }
    const terms = [...this.termChanges.entries()]
      .filter(([, change]) => change !== 0)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    if (terms.length > 0) {
      await client.query(
        `INSERT INTO paper_terms (lexeme, records) SELECT * FROM unnest($1::text[], $2::int4[])
         ON CONFLICT (lexeme) DO UPDATE SET records = paper_terms.records + excluded.records`,
        [terms.map(([lexeme]) => lexeme), terms.map(([, change]) => change)],
      );
    }
    await client.query(
      `UPDATE paper_index_stats SET data_version = data_version + 1, records = records + $1,
         tokens = tokens + $2, next_id = greatest(next_id, $3)`,
      [this.recordChange, this.tokenChange, this.nextId],
    );
  }
}

/** Each record version's vector, computed once (when prepared, counted when staged, written at the end). */
const vectors = new RecordMemo<VectorDocument>((paper) => documentVector(indexedText(paper)));

export function vectorOf(paper: Paper): VectorDocument {
  return vectors.of(paper);
}

export function decodeRecord(record: Buffer): Paper {
  return JSON.parse(inflateRawSync(record).toString('utf8')) as Paper;
}
