import { type ReferenceFields, readReferenceFields } from './reference-fields.js';

/**
 * The reference list of a parsed document: found under its "References" / "Bibliography" /
 * "Literature Cited" heading in the chunks' markdown, cut into entries and read into fields. Works
 * on the stored chunks (not on the PDF), so documents parsed before this existed, and texts from
 * full-text sources, have references too. Pure and synchronous: ~1 ms for a 60-entry list.
 */

/** How the entries of a list are marked. */
export type ReferenceStyle = 'numbered' | 'label' | 'author-year';

/** One entry of a reference list. */
export interface ReferenceEntry extends ReferenceFields {
  /** `[12]`, `12.` or `(12)` in a numbered list; null otherwise. */
  number: number | null;
  /** `[Ada93]` in a labelled list; null otherwise. */
  label: string | null;
  /** The entry's text as printed (lines joined, page furniture removed). */
  raw: string;
  /** 1-based chunk where the entry starts. */
  chunk: number;
}

export interface ReferenceList {
  style: ReferenceStyle;
  entries: ReferenceEntry[];
  /** 1-based chunk holding the list's heading; the list's paragraphs are not body text. */
  headingChunk: number;
  /** Paragraphs of the list (chunk index, paragraph index), so citation search can skip them. */
  paragraphs: ReadonlySet<string>;
}

/** The chunk fields this module reads (a stored parse's chunks fit). */
export interface ChunkText {
  text: string;
}

const headingPattern =
  /^#{1,6}\s*(?:[\dIVX]+\.?\s+)?(references?|bibliography|literature cited|works cited|reference list|cited literature)\s*:?\s*$/i;

/** Whether a heading's text (markdown `#` or not) opens a reference list: "References", "5 Bibliography". */
export function isReferencesHeading(text: string): boolean {
  return headingPattern.test(`# ${text.replace(/^#{1,6}\s*/, '')}`);
}

interface Paragraph {
  chunk: number;
  index: number;
  text: string;
}

/** Every paragraph of the chunks, in order, with its place. */
export function paragraphsOf(chunks: readonly ChunkText[]): Paragraph[] {
  return chunks.flatMap((chunk, chunkIndex) =>
    chunk.text
      .split(/\n\s*\n/)
      .map((text, index) => ({ chunk: chunkIndex + 1, index, text: text.trim() }))
      .filter((paragraph) => paragraph.text.length > 0),
  );
}

/** Where a paragraph sits, as `ReferenceList.paragraphs` keys it. */
export const paragraphKey = (chunk: number, index: number) => `${chunk}:${index}`;

/**
 * The document's reference list, or null when it has none that can be read. The last matching
 * heading wins (a thesis lists "Bibliography" in its table of contents too); the list runs to the
 * next heading.
 */
export function parseReferenceList(chunks: readonly ChunkText[]): ReferenceList | null {
  const paragraphs = paragraphsOf(chunks);
  const headings = paragraphs.flatMap((paragraph, at) => (headingPattern.test(paragraph.text) ? [at] : []));
  for (const at of headings.reverse()) {
    const section: Paragraph[] = [];
    for (const paragraph of paragraphs.slice(at + 1)) {
      if (paragraph.text.startsWith('#')) break;
      section.push(paragraph);
    }
    const list = readSection(section);
    if (list && list.entries.length >= 2) {
      return {
        ...list,
        headingChunk: paragraphs[at]?.chunk ?? 1,
        paragraphs: new Set(section.map((paragraph) => paragraphKey(paragraph.chunk, paragraph.index))),
      };
    }
  }
  return null;
}

/** A piece of the section's text and the chunk it came from. */
interface Piece {
  text: string;
  chunk: number;
}

function readSection(section: Paragraph[]): Omit<ReferenceList, 'headingChunk' | 'paragraphs'> | null {
  const pieces = section
    .map((paragraph) => ({ chunk: paragraph.chunk, text: cleanParagraph(paragraph.text) }))
    .filter((piece) => piece.text.length > 0 && !isPageFurniture(piece.text));
  if (pieces.length === 0) return null;
  const numbered = numberedStyle(pieces);
  if (numbered) return { style: 'numbered', entries: splitNumbered(pieces, numbered) };
  if (pieces.filter((piece) => labelStart.test(piece.text)).length >= 3) {
    return { style: 'label', entries: splitLabelled(pieces) };
  }
  return { style: 'author-year', entries: splitAuthorYear(pieces) };
}

/** Back-references ("(p. 17)") and escapes the chunker adds; the rest of the text stays. */
function cleanParagraph(text: string): string {
  return text
    .replace(/^\\(?=[#>])/, '')
    .replace(/\(pp?\.\s*\d+(?:\s*[,–-]\s*\d+)*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A running footer the layout kept: a copyright line or a bare page number. */
function isPageFurniture(text: string): boolean {
  return (
    (text.length < 200 &&
      /©|\bcopyright\b/i.test(text) &&
      !/\b(19|20)\d{2}\.\s+\S+/.test(text.replace(/©\s*\d{4}/g, ''))) ||
    /^\d{1,4}$/.test(text)
  );
}

// ----- numbered lists: [n] …, n. …, (n) …

type NumberForm = 'bracket' | 'dot' | 'paren';

const numberForms: Record<NumberForm, RegExp> = {
  bracket: /\[(\d{1,4})\]\s+/g,
  dot: /(?<![\d.])(\d{1,4})\.\s+(?=[\p{Lu}\p{N}“"'(])/gu,
  paren: /\((\d{1,4})\)\s+/g,
};

const startOf: Record<NumberForm, RegExp> = {
  bracket: /^\[(\d{1,4})\]\s/,
  dot: /^(\d{1,4})\.\s/,
  paren: /^\((\d{1,4})\)\s/,
};

/** The marker form most pieces start with, when the list is numbered from 1 or 0. */
function numberedStyle(pieces: Piece[]): NumberForm | null {
  let best: { form: NumberForm; count: number } | null = null;
  for (const form of Object.keys(startOf) as NumberForm[]) {
    const numbers = pieces.flatMap((piece) => {
      const match = startOf[form].exec(piece.text);
      return match?.[1] ? [Number(match[1])] : [];
    });
    if (numbers.length >= 2 && (numbers[0] ?? 99) <= 1 && (!best || numbers.length > best.count)) {
      best = { form, count: numbers.length };
    }
  }
  return best?.form ?? null;
}

/**
 * Entries of a numbered list: the section's text as one stream, cut at each marker carrying the
 * next number. A number out of sequence ("41. doi: …", the end of a page range wrapped onto its own
 * line) stays text; a marker at a paragraph start may skip up to six numbers (entries the layout interleaved with
 * another column, or lost).
 */
function splitNumbered(pieces: Piece[], form: NumberForm): ReferenceEntry[] {
  const { text, chunkAt, paragraphStarts } = stream(pieces);
  const starts: Array<{ at: number; body: number; number: number }> = [];
  let expected = Number(startOf[form].exec(pieces[0]?.text ?? '')?.[1] ?? 1);
  for (const match of text.matchAll(numberForms[form])) {
    const number = Number(match[1]);
    const at = match.index ?? 0;
    const atParagraph = paragraphStarts.has(at);
    const afterSentence = at === 0 || /[.)\]]\s$|\s$/.test(text.slice(Math.max(0, at - 2), at));
    const inSequence = number === expected || (atParagraph && number > expected && number <= expected + 6);
    if (inSequence && (atParagraph || afterSentence)) {
      starts.push({ at, body: at + match[0].length, number });
      expected = number + 1;
    }
  }
  return starts.map((start, index) => {
    const end = starts[index + 1]?.at ?? text.length;
    const raw = text.slice(start.body, end).trim();
    return { number: start.number, label: null, raw, chunk: chunkAt(start.at), ...readReferenceFields(raw) };
  });
}

// ----- labelled lists: [Ada93] …

const labelStart = /^\[([\p{L}][\p{L}+\-.]*\s?\d{2,4}[a-z]?)\]\s*/u;
const labelAnywhere = /\[([\p{L}][\p{L}+\-.]*\s?\d{2,4}[a-z]?)\]\s*/gu;

function splitLabelled(pieces: Piece[]): ReferenceEntry[] {
  const { text, chunkAt } = stream(pieces);
  const starts = [...text.matchAll(labelAnywhere)].filter((match) => {
    const at = match.index ?? 0;
    return at === 0 || /[.\s]$/.test(text.slice(at - 1, at));
  });
  return starts.flatMap((match, index) => {
    const at = match.index ?? 0;
    const end = starts[index + 1]?.index ?? text.length;
    const raw = text.slice(at + match[0].length, end).trim();
    if (!raw) return [];
    return [{ number: null, label: match[1] ?? null, raw, chunk: chunkAt(at), ...readReferenceFields(raw) }];
  });
}

// ----- author–year lists: one entry per paragraph, with the layout's mistakes repaired

const yearPattern = /\b(?:1[89]|20)\d{2}[a-z]?\b/;

/** Text that cannot start an entry: the continuation of the one before. */
const continuationStart =
  /^(?:[\p{Ll}\d(,;:)\]–-]|In\s|URL\b|arXiv\b|ArXiv\b|doi\b|DOI\b|https?:|pages?\s|pp\.|Proceedings\b|Association\b|Springer\b|Curran\b|Morgan\b|Vol\.|volume\b)/u;

/** Where one paragraph holds two entries: ". Dolan, B.; Quirk, C.; …" (AAAI, ACS). */
const joinedEntry =
  /(?<=[.?!])\s+(?=\p{Lu}[\p{L}'’-]+,\s(?:\p{Lu}\.[\s-]?)+(?:;|,|\sand\s|\s(?:19|20)\d{2}))/gu;

function splitAuthorYear(pieces: Piece[]): ReferenceEntry[] {
  const entries: Piece[] = [];
  for (const piece of pieces) {
    const current = entries[entries.length - 1];
    if (current && continues(current.text, piece.text)) current.text = `${current.text} ${piece.text}`;
    else entries.push({ ...piece });
  }
  return entries.flatMap((entry) =>
    splitJoined(entry.text).map((raw) => ({
      number: null,
      label: null,
      raw,
      chunk: entry.chunk,
      ...readReferenceFields(raw),
    })),
  );
}

/** Whether `next` continues the entry `current` rather than starting a new one. */
function continues(current: string, next: string): boolean {
  if (!yearPattern.test(current)) return true;
  // "A Anthropic. 2024." — the authors and year, the title still to come.
  const year = [...current.matchAll(new RegExp(yearPattern, 'g'))].at(-1);
  if (year && current.length - ((year.index ?? 0) + year[0].length) <= 3 && current.length < 400) return true;
  if (/[:,;&–-]$|\b(?:and|of|the|in|for|on|with|to|a|an)$/i.test(current)) return true;
  if (continuationStart.test(next)) return true;
  // A paragraph without a year is the rest of an entry, unless it is the start of the next one's
  // author list ("Tal August, Lucy Lu Wang, Marti A." — its year is in the paragraph after).
  return !yearPattern.test(next) && !looksLikeAuthorList(next);
}

/** Names and initials only, separated by commas: the head of an entry split from its year. */
function looksLikeAuthorList(text: string): boolean {
  return (
    text.length < 400 &&
    /,/.test(text) &&
    text
      .split(/[\s,]+/)
      .filter(Boolean)
      .every((word) => /^(?:\p{Lu}[\p{L}'’.-]*|and|&|van|von|de|der|den|la|del|da)$/u.test(word))
  );
}

function splitJoined(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const match of text.matchAll(joinedEntry)) {
    const at = match.index ?? 0;
    const before = text.slice(start, at);
    const after = text.slice(at + match[0].length, at + match[0].length + 300);
    if (yearPattern.test(before) && yearPattern.test(after)) {
      parts.push(before.trim());
      start = at + match[0].length;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** The pieces as one text, with where each chunk's text starts and where paragraphs start. */
function stream(pieces: Piece[]) {
  let text = '';
  const offsets: Array<{ at: number; chunk: number }> = [];
  const paragraphStarts = new Set<number>();
  for (const piece of pieces) {
    if (text) text += ' ';
    offsets.push({ at: text.length, chunk: piece.chunk });
    paragraphStarts.add(text.length);
    text += piece.text;
  }
  const chunkAt = (position: number) => {
    let chunk = offsets[0]?.chunk ?? 1;
    for (const offset of offsets) if (offset.at <= position) chunk = offset.chunk;
    return chunk;
  };
  return { text, chunkAt, paragraphStarts };
}

// ----- pasted text: a reference list without its document

/** One entry of a pasted reference list, as printed, with its list marker when it had one. */
export interface TextEntry {
  raw: string;
  number: number | null;
  label: string | null;
}

/**
 * The entries of a reference list given as text (decision 0048): one reference per line, a
 * numbered or bracketed list ("[1] …", "1. …", "(1) …", wrapped lines allowed), a labelled list
 * ("[Ada93] …"), or a "References" section copied from a paper (its heading dropped). In a list
 * without markers, paragraphs separated by blank lines are entries when the text has them, else
 * lines are, a line continuing the one before (starting in lower case, with "pp.", "In ", a DOI…,
 * or after a line ending in a hyphen, a comma or a word such as "of" or "the") joined to it. Entries keep their input order.
 */
export function splitReferenceText(text: string): TextEntry[] {
  const lines = text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim());
  while (lines.length > 0 && (lines[0] === '' || isReferencesHeading(lines[0] ?? ''))) lines.shift();
  const pieces: Piece[] = lines.filter(Boolean).map((line) => ({ text: line, chunk: 1 }));
  if (pieces.length === 0) return [];
  const marked = (entries: ReferenceEntry[]) =>
    entries.map(({ raw, number, label }) => ({ raw, number, label }));
  const numbered = numberedStyle(pieces);
  if (numbered) return marked(splitNumbered(pieces, numbered));
  if (pieces.filter((piece) => labelStart.test(piece.text)).length >= Math.min(3, pieces.length)) {
    return marked(splitLabelled(pieces));
  }
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter((paragraph) => paragraph && !isReferencesHeading(paragraph));
  if (paragraphs.length > 1 && paragraphs.length < pieces.length) {
    return paragraphs.map((raw) => ({ raw, number: null, label: null }));
  }
  const entries: string[] = [];
  for (const piece of pieces) {
    const previous = entries.length - 1;
    const last = entries[previous];
    const open = /[-–,:;&]$|\b(?:and|of|the|in|for|on|with|to|a|an)$/i.test(last ?? '');
    if (last !== undefined && (continuationStart.test(piece.text) || open)) {
      entries[previous] = /\p{L}-$/u.test(last) ? `${last}${piece.text}` : `${last} ${piece.text}`;
    } else entries.push(piece.text);
  }
  return entries.map((raw) => ({ raw, number: null, label: null }));
}
