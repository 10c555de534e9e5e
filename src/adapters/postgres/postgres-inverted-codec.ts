import type { IndexedText } from '../paper-index/index-fields.js';
import { indexTokens } from '../paper-index/index-tokenizer.js';

/**
 * The inverted layout's encodings (docs/decisions/0024; read by native/postgres/alexandria_inverted.c,
 * which describes the same formats): a record's words with their per-field term frequencies and
 * token positions, posting lists as bytes, and the per-document metadata blocks.
 */

/**
 * The words of one or more documents. Documents prepared together share one (a few thousand words
 * for a hundred records), so that the write looks each word up once per vocabulary, not once per
 * record.
 */
export class Vocabulary {
  /** The batch slot of each word for `slotsOwner` (−1: not looked up yet); kept by the writer. */
  slots: Int32Array | undefined;
  slotsOwner: object | undefined;

  constructor(readonly words: string[]) {}
}

/**
 * A record's indexed words, compact (ingest makes one per record; an object and arrays per word
 * made garbage collection a tenth of the PostgreSQL ingest): its word `i` is
 * `vocabulary.words[wordIds[i]]` and its occurrences are `occurrences[starts[i]]` to
 * `occurrences[starts[i + 1]]`: the term frequencies in the title, the abstract and the other
 * fields, then its positions ascending. Words come in order of first occurrence.
 */
export interface InvertedDocument {
  /** Tokens of all fields plus the three facet tokens the SQLite index counts (its record length). */
  length: number;
  vocabulary: Vocabulary;
  wordIds: Int32Array;
  starts: Int32Array;
  occurrences: Int32Array;
}

/** The document's words, in order. */
export function documentWords(document: InvertedDocument): string[] {
  return Array.from(document.wordIds, (id) => document.vocabulary.words[id] as string);
}

/** A word must fit a b-tree key (the former tsvector layout's lexeme limit, kept: same words indexed). */
const maxWordBytes = 2046;
const facetTokensPerRecord = 3;

/** Field class of each indexed field: 0 title, 1 abstract, 2 the rest (authors, venue, identifiers). */
export type FieldClass = 0 | 1 | 2;

const fields: Array<[keyof IndexedText, FieldClass]> = [
  ['title', 0],
  ['abstract', 1],
  ['authors', 2],
  ['venue', 2],
  ['extra', 2],
];

/**
 * Calls `visit` for each token of the record's fields in order with its position and field class,
 * and returns the record's length. Positions number the tokens from 1 across the fields with one
 * unused position between fields (so that a phrase never spans two fields). The length counts every token plus the three facet tokens SQLite counts.
 */
export function walkFieldTokens(
  text: IndexedText,
  visit: (token: string, position: number, field: FieldClass) => void,
): number {
  let position = 0;
  let length = facetTokensPerRecord;
  for (const [field, label] of fields) {
    const tokens = indexTokens(text[field]);
    length += tokens.length;
    for (const token of tokens) {
      position += 1;
      visit(token, position, label);
    }
    position += 1;
  }
  return length;
}

/** Scratch space of `invertedDocument` (one document at a time per thread). */
const scratch: {
  slots: Map<string, number>;
  tokenSlot: Int32Array;
  tokenPosition: Int32Array;
  frequencies: Int32Array;
} = {
  slots: new Map<string, number>(),
  tokenSlot: new Int32Array(1024),
  tokenPosition: new Int32Array(1024),
  frequencies: new Int32Array(3 * 256),
};

export function invertedDocument(text: IndexedText): InvertedDocument {
  const { slots } = scratch;
  slots.clear();
  const words: string[] = [];
  let tokens = 0;
  const length = walkFieldTokens(text, (token, position, field) => {
    if (!fitsWord(token)) return;
    let slot = slots.get(token);
    if (slot === undefined) {
      slot = words.length;
      slots.set(token, slot);
      words.push(token);
      if (3 * words.length > scratch.frequencies.length) scratch.frequencies = grown(scratch.frequencies);
      scratch.frequencies.fill(0, 3 * slot, 3 * slot + 3);
    }
    if (tokens === scratch.tokenSlot.length) {
      scratch.tokenSlot = grown(scratch.tokenSlot);
      scratch.tokenPosition = grown(scratch.tokenPosition);
    }
    scratch.tokenSlot[tokens] = slot;
    scratch.tokenPosition[tokens] = position;
    tokens += 1;
    (scratch.frequencies[3 * slot + field] as number) += 1;
  });
  const { tokenSlot, tokenPosition, frequencies } = scratch;
  const starts = new Int32Array(words.length + 1);
  for (let slot = 0; slot < words.length; slot += 1) {
    const count =
      (frequencies[3 * slot] as number) +
      (frequencies[3 * slot + 1] as number) +
      (frequencies[3 * slot + 2] as number);
    starts[slot + 1] = (starts[slot] as number) + 3 + count;
  }
  const occurrences = new Int32Array(starts[words.length] as number);
  const next = new Int32Array(words.length);
  for (let slot = 0; slot < words.length; slot += 1) {
    const at = starts[slot] as number;
    occurrences[at] = frequencies[3 * slot] as number;
    occurrences[at + 1] = frequencies[3 * slot + 1] as number;
    occurrences[at + 2] = frequencies[3 * slot + 2] as number;
    next[slot] = at + 3;
  }
  for (let token = 0; token < tokens; token += 1) {
    const slot = tokenSlot[token] as number;
    occurrences[next[slot] as number] = tokenPosition[token] as number;
    next[slot] = (next[slot] as number) + 1;
  }
  const wordIds = new Int32Array(words.length);
  for (let i = 0; i < wordIds.length; i += 1) wordIds[i] = i;
  return { length, vocabulary: new Vocabulary(words), wordIds, starts, occurrences };
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

export function fitsWord(token: string): boolean {
  return token.length * 3 <= maxWordBytes || Buffer.byteLength(token) <= maxWordBytes;
}

/** A growing byte buffer of varints. */
export class ByteWriter {
  private bytes: Uint8Array;
  length = 0;

  constructor(capacity = 64) {
    this.bytes = new Uint8Array(capacity);
  }

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
 * Appends one posting to a word's list: the document delta (varint) and the term frequencies (one
 * byte when they are ≤ 3/7/7, else a zero byte and three varints) to `docs`, and the positions,
 * delta-encoded, to `positions` (`occurrences[from]` to `occurrences[to]`, as in `InvertedDocument`).
 */
export function encodePosting(
  docs: ByteWriter,
  positions: ByteWriter,
  delta: number,
  occurrences: Int32Array,
  from: number,
  to: number,
): void {
  docs.varint(delta);
  const a = occurrences[from] as number;
  const b = occurrences[from + 1] as number;
  const c = occurrences[from + 2] as number;
  if (a <= 3 && b <= 7 && c <= 7) docs.byte((a << 6) | (b << 3) | c);
  else {
    docs.byte(0);
    docs.varint(a);
    docs.varint(b);
    docs.varint(c);
  }
  let previous = 0;
  for (let i = from + 3; i < to; i += 1) {
    const position = occurrences[i] as number;
    positions.varint(position - previous);
    previous = position;
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
