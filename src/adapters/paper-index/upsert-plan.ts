import { AppError } from '../../domain/errors.js';
import { identityKeys, type Paper } from '../../domain/paper.js';
import { identifiersConflict, unitePapers } from '../../domain/paper-union.js';
import { recordJson } from '../sqlite/paper-record-codec.js';
import { mergeableTitle } from './index-fields.js';

/** What an upsert does with one incoming record, decided the same way by every adapter. */
export type UpsertStep =
  | { action: 'insert'; keys: string[] }
  | { action: 'unchanged' }
  | {
      action: 'merge';
      /** The stored record that keeps its id (the lowest of the matches). */
      primaryId: number;
      primary: Paper;
      /** Other stored records folded into it (deleted). */
      folded: Array<[number, Paper]>;
      merged: Paper;
      json: string;
    };

/**
 * Same paper = a shared strong identity key, else the same normalised title (a mergeable one) with
 * no conflicting identifier (docs/decisions/0013). `owners(key)` lists the stored (or staged)
 * records owning a key. An untitled record only completes a stored paper: alone it is refused.
 */
export function planUpsert(paper: Paper, owners: (key: string) => Array<[number, Paper]>): UpsertStep {
  const keys = identityKeys(paper);
  const matches = new Map<number, Paper>();
  for (const key of keys) {
    if (key.startsWith('title:')) continue;
    for (const [id, stored] of owners(key)) matches.set(id, stored);
  }
  const titleKey = keys.find((key) => key.startsWith('title:'));
  if (matches.size === 0 && titleKey && mergeableTitle(paper.title)) {
    for (const [id, stored] of owners(titleKey)) {
      if (!identifiersConflict(stored, paper)) {
        matches.set(id, stored);
        break;
      }
    }
  }
  if (matches.size === 0) {
    if (!paper.title?.trim()) {
      throw new AppError('unprocessable', 'record has no title and matches no stored paper by identifier');
    }
    return { action: 'insert', keys };
  }
  const [primaryId, ...otherIds] = [...matches.keys()].sort((a, b) => a - b) as [number, ...number[]];
  const primary = matches.get(primaryId) as Paper;
  let merged = primary;
  const folded = otherIds.map((id): [number, Paper] => [id, matches.get(id) as Paper]);
  for (const [, other] of folded) merged = unitePapers(merged, other);
  merged = unitePapers(merged, paper);
  const json = recordJson(merged);
  if (folded.length === 0 && json === recordJson(primary)) return { action: 'unchanged' };
  return { action: 'merge', primaryId, primary, folded, merged, json };
}
