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
 * What both PostgreSQL layouts' upserts stage the same way (docs/decisions/0024): which records own
 * which identity keys, the current version of every record the batch has seen, the versions staged,
 * the rows folded away, the vectors made stale and the key rows to drop. Each layout's batch adds
 * how its text is written (`tsvector` rows or posting lists) and writes it all in one transaction.
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
    this.put(id, paper, keys, recordJson(paper));
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
}
