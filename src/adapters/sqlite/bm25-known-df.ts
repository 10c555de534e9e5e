import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

/**
 * The compiled `alexandria_bm25` extension (native/bm25-known-df.c, built by
 * scripts/build-sqlite-extension.mjs at `npm ci`): FTS5's BM25 with the phrases' document
 * frequencies passed in rather than counted by a full walk of each phrase's doclist per search.
 */
const extensionPath = fileURLToPath(
  new URL(
    `../../../native/build/bm25-known-df.${process.platform === 'darwin' ? 'dylib' : 'so'}`,
    import.meta.url,
  ),
);

/** True when the extension is built (a missing one is not an error: ranking falls back to bm25()). */
export function knownDfBm25Available(): boolean {
  return existsSync(extensionPath);
}

/** Loads `alexandria_bm25` into this connection; false when it is not built. */
export function loadKnownDfBm25(db: Database.Database): boolean {
  if (!knownDfBm25Available()) return false;
  db.loadExtension(extensionPath);
  return true;
}

/**
 * The phrases of an FTS5 MATCH expression in the order FTS5 numbers them (order of appearance).
 * Every phrase Alexandria writes is a double-quoted string (quotes doubled inside); the rest of the
 * expression is operators and parentheses.
 */
export function phrasesOf(expression: string): string[] {
  return [...expression.matchAll(/"(?:[^"]|"")*"/g)].map((match) => match[0]);
}

/** Records and indexed tokens of a whole index (all its full-text tables). */
export interface IndexTotals {
  rows: number;
  tokens: number;
}

/** How a statement orders its rows: by score alone, or by a sort key first (then score). */
export type RankedBy = 'score' | 'key';

/**
 * The blob `alexandria_bm25` takes (float64, native byte order): the index's records and average
 * length, how many best rows the statement keeps (its LIMIT; 0 scores every row exactly), what
 * orders them (a sort key passed as the function's last argument, or the score), then one
 * document frequency per phrase.
 */
export function frequencyBlob(
  totals: IndexTotals,
  keep: number,
  rankedBy: RankedBy,
  frequencies: readonly number[],
): Buffer {
  const average = totals.rows > 0 ? totals.tokens / totals.rows : 0;
  const header = [totals.rows, average, keep, rankedBy === 'key' ? 1 : 0];
  return Buffer.from(Float64Array.from([...header, ...frequencies]).buffer);
}

/**
 * Rows and tokens of one FTS5 table, from its averages record (row 1 of `<table>_data`: a varint
 * row count, then a varint token total per column; SQLite's file format, stable across versions) —
 * the figures FTS5's xRowCount and xColumnTotalSize report to bm25().
 */
export function ftsTotals(db: Database.Database, table: string): IndexTotals {
  const block = db.prepare(`SELECT block FROM "${table}_data" WHERE id = 1`).pluck().get() as
    | Buffer
    | undefined;
  if (!block || block.length === 0) return { rows: 0, tokens: 0 };
  let at = 0;
  const next = (): number => {
    const [value, size] = readVarint(block, at);
    at += size;
    return value;
  };
  const rows = next();
  let tokens = 0;
  while (at < block.length) tokens += next();
  return { rows, tokens };
}

/** SQLite's varint: big-endian groups of 7 bits, the high bit set on all but the last; a ninth byte gives 8 bits. */
function readVarint(bytes: Buffer, start: number): [value: number, size: number] {
  let value = 0;
  for (let index = 0; index < 9; index += 1) {
    const byte = bytes[start + index] ?? 0;
    if (index === 8) return [value * 256 + byte, 9];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, index + 1];
  }
  return [value, 9];
}
