import type { IndexedText } from '../paper-index/index-fields.js';
import { indexTokens } from '../paper-index/index-tokenizer.js';

/**
 * The inverted layout's encodings (docs/decisions/0024; read by native/postgres/alexandria_inverted.c,
 * which describes the same formats): a record's words with their per-field term frequencies and
 * token positions, posting lists as bytes, and the per-document metadata blocks.
 */

/**
 * One word in one record, flat: term frequencies in the title, the abstract and the other fields,
 * then the positions (one array per word instead of an object and two arrays: ingest allocates one
 * per word per record, and their garbage collection was a tenth of the PostgreSQL ingest).
 */
export type WordOccurrences = number[];

export interface InvertedDocument {
  /** Tokens of all fields plus the three facet tokens the SQLite index counts (its record length). */
  length: number;
  words: Map<string, WordOccurrences>;
}

/** A word must fit a b-tree key (and the tsvector layout's lexeme limit, for equal statistics). */
const maxWordBytes = 2046;
const facetTokensPerRecord = 3;

const fields: Array<[keyof IndexedText, 0 | 1 | 2]> = [
  ['title', 0],
  ['abstract', 1],
  ['authors', 2],
  ['venue', 2],
  ['extra', 2],
];

/**
 * Positions number the tokens from 1 across the fields in order with one unused position between
 * fields (so that a phrase never spans two fields), as the tsvector layout numbers them.
 */
export function invertedDocument(text: IndexedText): InvertedDocument {
  const words = new Map<string, WordOccurrences>();
  let position = 0;
  let length = facetTokensPerRecord;
  for (const [field, label] of fields) {
    const tokens = indexTokens(text[field]);
    length += tokens.length;
    for (const token of tokens) {
      position += 1;
      if (!fitsWord(token)) continue;
      let word = words.get(token);
      if (!word) {
        word = [0, 0, 0];
        words.set(token, word);
      }
      (word[label] as number) += 1;
      word.push(position);
    }
    position += 1;
  }
  return { length, words };
}

export function fitsWord(token: string): boolean {
  return token.length * 3 <= maxWordBytes || Buffer.byteLength(token) <= maxWordBytes;
}

/** A growing byte buffer of varints. */
export class ByteWriter {
  private bytes = new Uint8Array(64);
  length = 0;

  varint(value: number): void {
    if (this.length + 10 > this.bytes.length) this.room(10);
    const bytes = this.bytes;
    if (value < 0x80) {
      bytes[this.length++] = value;
      return;
    }
    let rest = value;
    while (rest >= 0x80000000) {
      bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    while (rest >= 0x80) {
      bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    bytes[this.length++] = rest;
  }

  byte(value: number): void {
    if (this.length + 1 > this.bytes.length) this.room(1);
    this.bytes[this.length++] = value;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.length);
  }

  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

/**
 * One word's new postings of a batch, documents ascending: `docs` (delta, frequencies) and
 * `positions` (each posting's positions, delta-encoded), as the extension reads them.
 */
export class PostingWriter {
  readonly docs = new ByteWriter();
  readonly positions = new ByteWriter();
  private last = 0;

  add(doc: number, occurrences: WordOccurrences): void {
    if (doc <= this.last) throw new Error(`postings out of order: ${doc} after ${this.last}`);
    this.docs.varint(doc - this.last);
    this.last = doc;
    const a = occurrences[0] as number;
    const b = occurrences[1] as number;
    const c = occurrences[2] as number;
    if (a <= 3 && b <= 7 && c <= 7) this.docs.byte((a << 6) | (b << 3) | c);
    else {
      this.docs.byte(0);
      this.docs.varint(a);
      this.docs.varint(b);
      this.docs.varint(c);
    }
    let previous = 0;
    for (let i = 3; i < occurrences.length; i += 1) {
      const position = occurrences[i] as number;
      this.positions.varint(position - previous);
      previous = position;
    }
  }
}

/** Documents per metadata row, and the bytes of each document's entry in `core` and `keys`. */
export const docsPerBlock = 1024;
const coreBytes = 8;
const keysBytes = 8;
export const docFlags = { live: 1, patent: 2, reviewed: 4 } as const;

export interface DocEntry {
  length: number;
  year: number | null;
  patent: boolean;
  reviewed: boolean;
  citedByCount: number | null;
  /** Sortable publication date text (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`). */
  published: string | null;
}

/** One metadata row: the `core` (length, year, flags) and `keys` (citations, date) of 1024 documents. */
export class DocBlock {
  constructor(
    readonly core: Buffer = Buffer.alloc(docsPerBlock * coreBytes),
    readonly keys: Buffer = Buffer.alloc(docsPerBlock * keysBytes),
  ) {}

  put(doc: number, entry: DocEntry): void {
    const slot = doc % docsPerBlock;
    const at = slot * coreBytes;
    this.core.writeInt32LE(Math.min(entry.length, 2 ** 31 - 1), at);
    this.core.writeInt16LE(
      entry.year === null ? -32768 : Math.max(-32767, Math.min(32767, entry.year)),
      at + 4,
    );
    this.core.writeUInt8(
      docFlags.live | (entry.patent ? docFlags.patent : 0) | (entry.reviewed ? docFlags.reviewed : 0),
      at + 6,
    );
    const key = slot * keysBytes;
    this.keys.writeInt32LE(
      entry.citedByCount === null ? -1 : Math.max(0, Math.min(entry.citedByCount, 2 ** 31 - 1)),
      key,
    );
    this.keys.writeInt32LE(dateKey(entry.published), key + 4);
  }

  /** Marks the document dead (a record deleted, or its text replaced under a new document number). */
  kill(doc: number): void {
    const at = (doc % docsPerBlock) * coreBytes + 6;
    this.core.writeUInt8(this.core.readUInt8(at) & ~docFlags.live, at);
  }
}

/** `YYYY[-MM[-DD]]` as YYYYMMDD with unknown parts 0 (the same order as the text); −1 without a date. */
export function dateKey(published: string | null): number {
  const match = published ? /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(published) : null;
  if (!match) return -1;
  return Number(match[1]) * 10_000 + Number(match[2] ?? 0) * 100 + Number(match[3] ?? 0);
}
