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

/**
 * The canonical JSON of a record: one line, no null fields, keys sorted (top level and
 * identifiers), so that equal records give equal text whatever order their fields were set in, and
 * a re-run is recognised as unchanged.
 */
export function recordJson(paper: Paper): string {
  return JSON.stringify(canonical(paper as Record<string, unknown>, true));
}

function canonical(value: Record<string, unknown>, top: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = value[key];
    if (field === null || field === undefined || (top && transientFields.has(key))) continue;
    result[key] =
      top && key === 'identifiers' && typeof field === 'object' && !Array.isArray(field)
        ? canonical(field as Record<string, unknown>, false)
        : field;
  }
  return result;
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
