import type pg from 'pg';
import { identityKeys } from '../../domain/paper.js';
import { decodeRecord, jsonOf } from './postgres-inverted-prepare.js';
import { InvertedBatch } from './postgres-inverted-writes.js';

/**
 * Setting up the index's one layout, `inverted` (decision 0058), in the migration's transaction:
 * on a new index, and on an index created with the former `tsvector` layout (records' tsvectors
 * under GIN, document frequencies in `paper_terms`), whose records are then indexed again.
 */

/** Records re-indexed per batch: one batch's postings and record rows are held in memory. */
const conversionBatch = 2000;

/**
 * Drops what only the tsvector layout used, sets the record table up as the inverted layout reads
 * it, and writes every stored record's postings, document entry and totals anew (ids, identity
 * keys and record vectors stay). Runs inside the caller's transaction: a failure rolls all of it
 * back and leaves the tsvector index as it was. Returns the number of records re-indexed.
 */
export async function convertToInverted(client: pg.PoolClient): Promise<number> {
  // Writers of this index wait (a process of an older version must not write tsvector rows meanwhile).
  await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.paper_index'))");
  // The inverted layout reads a page's records by document number and never scans record rows:
  // the record stays inline (no TOAST row and index entry per record).
  await client.query(`DROP INDEX IF EXISTS paper_records_terms;
    ALTER TABLE paper_records DROP COLUMN IF EXISTS terms;
    DROP TABLE IF EXISTS paper_terms;
    TRUNCATE paper_words, paper_postings, paper_docs;
    UPDATE paper_index_stats SET records = 0, tokens = 0, next_doc = 1;
    CREATE UNIQUE INDEX IF NOT EXISTS paper_records_doc ON paper_records (doc);
    ALTER TABLE paper_records ALTER COLUMN record SET STORAGE MAIN;
    ALTER TABLE paper_records RESET (toast_tuple_target);`);
  let converted = 0;
  let after = 0;
  for (;;) {
    const found = await client.query<{ id: string; record: Buffer }>(
      'SELECT id, record FROM paper_records WHERE id > $1 ORDER BY id LIMIT $2',
      [after, conversionBatch],
    );
    if (found.rows.length === 0) break;
    const batch = await InvertedBatch.start(client);
    for (const row of found.rows) {
      const paper = decodeRecord(row.record);
      batch.put(Number(row.id), paper, identityKeys(paper), jsonOf(paper));
    }
    await batch.write(client);
    converted += found.rows.length;
    after = Number(found.rows[found.rows.length - 1]?.id);
  }
  await client.query(
    `INSERT INTO paper_index_settings (name, value) VALUES ('layout', 'inverted')
     ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
  );
  return converted;
}
