import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Paper } from '../../domain/paper.js';

/**
 * Stored records are compressed in blocks of a few dozen records, the way search engines store
 * fields: the FTS5 index keeps no text of its own, so this is the one copy of each record. One
 * deflate call per block instead of per record is both far cheaper (zlib's set-up cost dominates on
 * a 1 KiB record) and far smaller (records of one block share vocabulary), which is what keeps the
 * index file under 1.5× the raw text.
 */

/** Target uncompressed size of a block; reading one record inflates its whole block. */
export const blockBytes = 16 * 1024;

/** Fields never stored: per-request additions. */
const transientFields = new Set(['answer', 'entry_id']);

/** The canonical JSON of a record (one line, no null fields); equal JSON means no change. */
export function recordJson(paper: Paper): string {
  const stored: Record<string, unknown> = {};
  for (const key in paper) {
    const value = (paper as Record<string, unknown>)[key];
    if (value === null || value === undefined || transientFields.has(key)) continue;
    stored[key] = value;
  }
  return JSON.stringify(stored);
}

/** Packs record JSON lines (JSON never holds a raw line break) into one compressed block. */
export function encodeBlock(lines: readonly string[]): Buffer {
  return deflateRawSync(lines.join('\n'), { level: 6 });
}

/** The JSON lines of a block, by slot. */
export function decodeBlock(bytes: Uint8Array): string[] {
  return inflateRawSync(bytes).toString('utf8').split('\n');
}

/** A stored record back as a Paper, with the spec's always-present fields filled in. */
export function parseRecord(json: string): Paper {
  const stored = JSON.parse(json) as Partial<Paper>;
  return {
    ...stored,
    title: stored.title ?? '',
    authors: stored.authors ?? [],
    abstract: stored.abstract ?? null,
    publication_date: stored.publication_date ?? null,
    cited_by_count: stored.cited_by_count ?? null,
    url: stored.url ?? null,
    ss_id: stored.ss_id ?? null,
    doi: stored.doi ?? null,
  };
}
