import type Database from 'better-sqlite3';
import type { Paper } from '../../domain/paper.js';
import { blockBytes, decodeBlock, encodeBlock, parseRecord, recordJson } from './paper-record-codec.js';

/** Where a stored record lives. */
export interface RecordLocation {
  block: number;
  slot: number;
}

/**
 * The records of the index, stored in compressed blocks (`record_blocks`), located through the
 * `papers` row (`block`, `slot`). Within a write transaction, new versions are staged in memory and
 * written as fresh blocks by `flush`; a replaced version's slot just dies (`live` counts the living
 * slots; a block with none left is deleted). Reads see staged versions first.
 */
export class PaperRecordBlocks {
  private readonly staged = new Map<number, { paper: Paper; json: string }>();
  /** Recently inflated blocks (merging a re-run reads neighbours from the same block). */
  private readonly decoded = new Map<number, string[]>();
  private readonly statements;

  constructor(db: Database.Database) {
    this.statements = {
      location: db.prepare('SELECT block, slot FROM papers WHERE id = ?'),
      block: db.prepare('SELECT data FROM record_blocks WHERE id = ?').pluck(),
      insertBlock: db.prepare('INSERT INTO record_blocks (data, live) VALUES (?, ?)'),
      killSlot: db.prepare('UPDATE record_blocks SET live = live - 1 WHERE id = ? RETURNING live').pluck(),
      deleteBlock: db.prepare('DELETE FROM record_blocks WHERE id = ?'),
    };
  }

  /** The record with this id (staged version first), or undefined. */
  get(id: number): Paper | undefined {
    const staged = this.staged.get(id);
    if (staged) return staged.paper;
    const location = this.statements.location.get(id) as RecordLocation | undefined;
    if (!location) return undefined;
    const json = this.lines(location.block)[location.slot];
    return json === undefined ? undefined : parseRecord(json);
  }

  /** Several stored records at once, by id (a result page); blocks shared by several are inflated once. */
  getMany(ids: readonly number[]): Paper[] {
    return ids.map((id) => {
      const paper = this.get(id);
      if (!paper) throw new Error(`paper ${id} has no stored record`);
      return paper;
    });
  }

  isStaged(id: number): boolean {
    return this.staged.has(id);
  }

  /** Stages the new version of a record (written by `flush`). */
  stage(id: number, paper: Paper, json = recordJson(paper)): void {
    this.staged.set(id, { paper, json });
  }

  /** Forgets a staged version that will not be written (its paper was folded into another). */
  unstage(id: number): void {
    this.staged.delete(id);
  }

  /** The stored version's slot dies (the record is replaced or removed). */
  release(location: RecordLocation): void {
    const live = this.statements.killSlot.get(location.block) as number | undefined;
    if (live !== undefined && live <= 0) this.statements.deleteBlock.run(location.block);
  }

  /** Writes every staged record into new blocks; returns each id with its record and new location. */
  flush(): Array<{ id: number; paper: Paper; location: RecordLocation }> {
    const written: Array<{ id: number; paper: Paper; location: RecordLocation }> = [];
    let lines: string[] = [];
    let members: Array<{ id: number; paper: Paper }> = [];
    let size = 0;
    const writeBlock = () => {
      if (lines.length === 0) return;
      const block = Number(this.statements.insertBlock.run(encodeBlock(lines), lines.length).lastInsertRowid);
      for (const [slot, member] of members.entries()) written.push({ ...member, location: { block, slot } });
      lines = [];
      members = [];
      size = 0;
    };
    for (const [id, { paper, json }] of this.staged) {
      lines.push(json);
      members.push({ id, paper });
      size += json.length;
      if (size >= blockBytes) writeBlock();
    }
    writeBlock();
    this.staged.clear();
    return written;
  }

  /** Drops staged versions and decoded blocks (after a rollback, or when another process wrote). */
  reset(): void {
    this.staged.clear();
    this.decoded.clear();
  }

  private lines(block: number): string[] {
    let lines = this.decoded.get(block);
    if (!lines) {
      const bytes = this.statements.block.get(block) as Buffer | undefined;
      if (!bytes) return [];
      lines = decodeBlock(bytes);
      if (this.decoded.size >= 64) this.decoded.delete(this.decoded.keys().next().value as number);
      this.decoded.set(block, lines);
    }
    return lines;
  }
}
