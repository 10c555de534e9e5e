/**
 * Record vectors in the SQLite index file (`record_vectors`, migration step 3): which records lack
 * one, storing new ones (only while the record is at the version that was embedded), reading some.
 * Runs on the index's read-write connection; vectors never bump the data version (the records did
 * not change; cached search pages age out with their TTL).
 */
import type Database from 'better-sqlite3';
import type { Paper } from '../../domain/paper.js';
import type { RecordToEmbed, RecordVectorEntry } from '../../ports/paper-index.js';
import { decodeRecordVector, encodeRecordVector } from '../paper-index/record-vector-codec.js';

export class SqliteRecordVectors {
  private readonly statements;
  /** Model name → its code in `vector_models`. */
  private readonly codes = new Map<string, number>();

  constructor(
    private readonly db: Database.Database,
    private readonly recordsOf: (ids: readonly number[]) => Paper[],
  ) {
    this.statements = {
      code: db.prepare('SELECT code FROM vector_models WHERE name = ?').pluck(),
      addModel: db.prepare('INSERT OR IGNORE INTO vector_models (name) VALUES (?)'),
      missing: db.prepare(
        `SELECT p.id, p.block, p.slot FROM papers p
         WHERE p.id > ? AND NOT EXISTS (SELECT 1 FROM record_vectors v WHERE v.id = p.id AND v.model = ?)
         ORDER BY p.id LIMIT ?`,
      ),
      location: db.prepare('SELECT block, slot FROM papers WHERE id = ?'),
      put: db.prepare('INSERT OR REPLACE INTO record_vectors (id, model, vector) VALUES (?, ?, ?)'),
      get: db.prepare('SELECT vector FROM record_vectors WHERE id = ? AND model = ?').pluck(),
      covered: db.prepare('SELECT count(*) FROM record_vectors WHERE model = ?').pluck(),
      records: db.prepare('SELECT count(*) FROM papers').pluck(),
    };
  }

  /** Records above `afterId` without a vector for `model`; the stamp is where the version lives. */
  missing(model: string, afterId: number, limit: number): RecordToEmbed[] {
    const code = this.code(model, false) ?? -1;
    const rows = this.statements.missing.all(afterId, code, limit) as Array<{
      id: number;
      block: number;
      slot: number;
    }>;
    const papers = this.recordsOf(rows.map((row) => row.id));
    return rows.map((row, index) => ({
      id: row.id,
      stamp: `${row.block}:${row.slot}`,
      paper: papers[index] as Paper,
    }));
  }

  /**
   * Stores the entries whose record is still at its stamp (a new version of a record lives in a new
   * block slot), in one transaction.
   */
  put(model: string, entries: readonly RecordVectorEntry[]): number {
    let stored = 0;
    this.db
      .transaction(() => {
        const code = this.code(model, true) as number;
        for (const entry of entries) {
          const at = this.statements.location.get(entry.id) as { block: number; slot: number } | undefined;
          if (!at || `${at.block}:${at.slot}` !== entry.stamp) continue;
          this.statements.put.run(entry.id, code, encodeRecordVector(entry.vector));
          stored += 1;
        }
      })
      .immediate();
    return stored;
  }

  /** The ids that are stored records, in that order. */
  present(ids: readonly number[]): number[] {
    return ids.filter((id) => this.statements.location.get(id) !== undefined);
  }

  get(model: string, ids: readonly number[]): Map<number, Float32Array> {
    const found = new Map<number, Float32Array>();
    const code = this.code(model, false);
    if (code === undefined) return found;
    for (const id of ids) {
      const bytes = this.statements.get.get(id, code) as Buffer | undefined;
      if (bytes) found.set(id, decodeRecordVector(bytes));
    }
    return found;
  }

  /** How many records the index holds. */
  records(): number {
    return this.statements.records.get() as number;
  }

  coverage(model: string): { withVectors: number; records: number } {
    const code = this.code(model, false);
    return {
      withVectors: code === undefined ? 0 : (this.statements.covered.get(code) as number),
      records: this.statements.records.get() as number,
    };
  }

  private code(model: string, create: boolean): number | undefined {
    const known = this.codes.get(model);
    if (known !== undefined) return known;
    if (create) this.statements.addModel.run(model);
    const code = this.statements.code.get(model) as number | undefined;
    if (code !== undefined) this.codes.set(model, code);
    return code;
  }
}
