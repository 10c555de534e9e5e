import type pg from 'pg';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { keyHash } from '../paper-index/index-fields.js';
import { vectorTextChanged } from '../paper-index/record-vector-codec.js';
import { recordJson } from '../sqlite/paper-record-codec.js';

/** A record version staged by an upsert: the paper, its stored JSON and the identity keys it owns. */
export interface StagedRecord {
  paper: Paper;
  json: string;
  keys: string[];
}

/**
 * What a PostgreSQL index upsert stages (docs/decisions/0024): which records own
 * which identity keys, the current version of every record the batch has seen, the versions staged,
 * the rows folded away, the vectors made stale and the key rows to drop. `InvertedBatch` adds how
 * the text is written (posting lists) and writes it all in one transaction.
 */
export abstract class StagedRecords {
  /** Key hash → ids owning it (stored or staged). */
  protected readonly keyOwners = new Map<number, Set<number>>();
  /** Current version of every record the batch has seen (stored or staged). */
  protected readonly records = new Map<number, Paper>();
  protected readonly staged = new Map<number, StagedRecord>();
  /** Stored records whose row is deleted (folded into another). */
  protected readonly deleted = new Set<number>();
  /** Stored records whose title or abstract changes: their vectors are dropped (decision 0036). */
  protected readonly staleVectors = new Set<number>();
  /** Key rows (hash, id) to delete. */
  protected readonly dropKeys: Array<[number, number]> = [];

  protected constructor(protected nextId: number) {}

  /** Records owning `key` now (hash collisions filtered out). */
  owners(key: string): Array<[number, Paper]> {
    const owners: Array<[number, Paper]> = [];
    for (const id of this.keyOwners.get(keyHash(key)) ?? []) {
      const paper = this.records.get(id);
      if (paper && identityKeys(paper).includes(key)) owners.push([id, paper]);
    }
    return owners;
  }

  insert(paper: Paper, keys: string[]): void {
    const id = this.nextId;
    this.nextId += 1;
    this.put(id, paper, keys, this.jsonOf(paper));
  }

  /** The record's stored JSON (a layout that prepared it ahead returns that). */
  protected jsonOf(paper: Paper): string {
    return recordJson(paper);
  }

  /** Stages the new version of record `id` (its keys now owned by it). */
  put(id: number, paper: Paper, keys: string[], json: string): void {
    const before = this.records.get(id);
    if (before && vectorTextChanged(before, paper)) this.staleVectors.add(id);
    this.records.set(id, paper);
    this.staged.set(id, { paper, json, keys });
    this.deleted.delete(id);
    for (const key of keys) {
      const hash = keyHash(key);
      let owners = this.keyOwners.get(hash);
      if (!owners) {
        owners = new Set();
        this.keyOwners.set(hash, owners);
      }
      owners.add(id);
    }
  }

  /** Takes the current version of record `id` out (its keys; with `deleteRow`, the record). */
  remove(id: number, current: Paper, deleteRow: boolean): void {
    for (const key of identityKeys(current)) {
      const hash = keyHash(key);
      this.keyOwners.get(hash)?.delete(id);
      if (!this.staged.has(id)) this.dropKeys.push([hash, id]);
    }
    this.staged.delete(id);
    if (deleteRow) {
      this.records.delete(id);
      this.deleted.add(id);
    }
  }

  /** Deletes the rows of records folded away, the key rows dropped and the stale vectors. */
  protected async writeRemovals(client: pg.PoolClient): Promise<void> {
    if (this.deleted.size > 0) {
      await client.query('DELETE FROM paper_records WHERE id = ANY($1::bigint[])', [[...this.deleted]]);
    }
    if (this.dropKeys.length > 0) {
      await client.query(
        'DELETE FROM paper_keys WHERE (hash, paper_id) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))',
        [this.dropKeys.map(([hash]) => hash), this.dropKeys.map(([, id]) => id)],
      );
    }
    if (this.staleVectors.size > 0) {
      await client.query('DELETE FROM paper_record_vectors WHERE id = ANY($1::bigint[])', [
        [...this.staleVectors],
      ]);
    }
  }

  /** Staged records in id order (the order they are written in). */
  protected stagedInOrder(): Array<[number, StagedRecord]> {
    return [...this.staged.entries()].sort(([a], [b]) => a - b);
  }

  /** Writes the identity keys the staged records own (after their rows). */
  protected async writeKeys(client: pg.PoolClient, rows: Array<[number, StagedRecord]>): Promise<void> {
    const keys = rows.flatMap(([id, { keys }]) => keys.map((key): [number, number] => [keyHash(key), id]));
    if (keys.length === 0) return;
    await client.query(
      'INSERT INTO paper_keys (hash, paper_id) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT DO NOTHING',
      [keys.map(([hash]) => hash), keys.map(([, id]) => id)],
    );
  }
}
