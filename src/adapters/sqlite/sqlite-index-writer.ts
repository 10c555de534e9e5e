/**
 * The write side of the SQLite paper index: an upsert decides each record through the shared
 * `planUpsert`, stages new versions (record blocks and key rows at once), takes replaced ones out
 * (full-text entry, facet counts, block slot), then flushes the staged ones into blocks, paper
 * rows and their shard's full-text table, all in one IMMEDIATE transaction.
 */
import type Database from 'better-sqlite3';
import { identityKeys, type Paper } from '../../domain/paper.js';
import type { UpsertSummary } from '../../ports/paper-index.js';
import { facetsFor, indexedText, keyHash, paperColumns } from '../paper-index/index-fields.js';
import { vectorTextChanged } from '../paper-index/record-vector-codec.js';
import { planUpsert } from '../paper-index/upsert-plan.js';
import { ftsTable, readShardLayout } from './paper-index-migrations.js';
import type { PaperRecordBlocks, RecordLocation } from './paper-record-blocks.js';
import { type ShardWriteStatements, shardWriteStatements } from './sqlite-shard-statements.js';

/** Writes records on the index's read-write connection. */
export class SqliteIndexWriter {
  private readonly statements;
  private readonly shards: ShardWriteStatements[];
  private readonly shardBlock: number;
  /** The id the next new record gets (set under the write lock of each upsert). */
  private nextId = 1;

  /** `records`: the connection's record blocks (shared with its reader). */
  constructor(
    private readonly db: Database.Database,
    private readonly records: PaperRecordBlocks,
  ) {
    const layout = readShardLayout(db);
    this.shardBlock = layout.shardBlock;
    this.shards = Array.from({ length: layout.shards }, (_, shard) =>
      shardWriteStatements(db, ftsTable(shard)),
    );
    this.statements = {
      putPaper: db.prepare(
        'INSERT OR REPLACE INTO papers (id, kind, year, published, cited_by_count, reviewed, block, slot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      deletePaper: db.prepare('DELETE FROM papers WHERE id = ?'),
      deleteVectors: db.prepare('DELETE FROM record_vectors WHERE id = ?'),
      location: db.prepare('SELECT block, slot FROM papers WHERE id = ?'),
      lastId: db.prepare('SELECT coalesce(max(id), 0) FROM papers').pluck(),
      insertKey: db.prepare('INSERT OR IGNORE INTO paper_keys (hash, paper_id) VALUES (?, ?)'),
      deleteKey: db.prepare('DELETE FROM paper_keys WHERE hash = ? AND paper_id = ?'),
      idsOfKey: db.prepare('SELECT paper_id FROM paper_keys WHERE hash = ?').pluck(),
      countFacet: db.prepare(
        'INSERT INTO facet_counts (token, records) VALUES (?, ?) ON CONFLICT (token) DO UPDATE SET records = records + excluded.records',
      ),
      bumpDataVersion: db.prepare(
        "UPDATE index_settings SET value = CAST(value AS INTEGER) + 1 WHERE name = 'data_version'",
      ),
    };
  }

  /**
   * Inserts or merges `papers` in one transaction; the data version is bumped in it when anything
   * changed, so no reader sees the new records under the old version. Staged versions are dropped
   * whatever happens (a rollback leaves none behind).
   */
  upsert(papers: readonly Paper[]): UpsertSummary {
    const summary: UpsertSummary = { inserted: 0, merged: 0, unchanged: 0 };
    try {
      // IMMEDIATE: the write lock is taken first, so the next ids cannot race another process.
      this.db
        .transaction(() => {
          this.nextId = (this.statements.lastId.get() as number) + 1;
          for (const paper of papers) this.upsertOne(paper, summary);
          this.flush();
          if (summary.inserted + summary.merged > 0) this.statements.bumpDataVersion.run();
        })
        .immediate();
    } finally {
      this.records.reset();
    }
    return summary;
  }

  /** Records (staged or stored) owning `key`, by id (hash collisions filtered out). */
  owners(key: string): Array<[number, Paper]> {
    const owners: Array<[number, Paper]> = [];
    for (const id of this.statements.idsOfKey.all(keyHash(key)) as number[]) {
      const stored = this.records.get(id);
      if (stored && identityKeys(stored).includes(key)) owners.push([id, stored]);
    }
    return owners;
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
      // Its vectors were computed from the old title and abstract: computed again (decision 0036).
      if (vectorTextChanged(step.primary, step.merged)) this.statements.deleteVectors.run(step.primaryId);
      this.stage(step.primaryId, step.merged, identityKeys(step.merged), step.json);
      summary.merged += 1;
    }
  }

  /** The shard record `id` lives in: stripes of `shardBlock` consecutive ids, dealt round. */
  private shardOf(id: number): ShardWriteStatements {
    return this.shards[Math.floor((id - 1) / this.shardBlock) % this.shards.length] as ShardWriteStatements;
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
    if (options.deleteRow) {
      this.statements.deletePaper.run(id);
      this.statements.deleteVectors.run(id);
    }
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

  private countFacets(paper: Paper, change: 1 | -1): void {
    for (const token of facetsFor(paper)) this.statements.countFacet.run(token, change);
  }
}
