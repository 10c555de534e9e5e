/**
 * The letter stream of a text: its letters and digits, lower-cased and without accents. Cleaning a
 * PDF's text only re-spaces, de-hyphenates, recomposes accents and adds markdown, so positions in
 * this stream locate a stretch of text across those changes: a chunk's line spans are computed in
 * it, and a quoted sentence is found in a chunk through it.
 */

/** The letters of one character (a code point): lower-cased, without accents, '' for a non-letter. */
function lettersOf(char: string): string {
  return /[\p{L}\p{N}]/u.test(char)
    ? char
        .normalize('NFKD')
        .replace(/[^\p{L}\p{N}]/gu, '')
        .toLowerCase()
    : '';
}

/**
 * Each character's letters, worked out once per process: the chunker and the line anchors ask for
 * every character of every page, and a Unicode test, a normalisation and a replace per character
 * were a fifth of a PDF parse's JavaScript time (decision 0053). ASCII is a table; other characters
 * are remembered up to a bound (a document uses a few hundred).
 */
const asciiLetters = Array.from({ length: 128 }, (_, code) => lettersOf(String.fromCharCode(code)));
const otherLetters = new Map<string, string>();

function cachedLettersOf(char: string): string {
  let letters = otherLetters.get(char);
  if (letters === undefined) {
    letters = lettersOf(char);
    if (otherLetters.size < 65_536) otherLetters.set(char, letters);
  }
  return letters;
}

/** One entry per UTF-16 unit of `text`: its letters (empty for anything else, two for a ligature). */
export function letterKeys(text: string): string[] {
  const keys: string[] = [];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 128) {
      keys.push(asciiLetters[code] as string);
      continue;
    }
    const point = text.codePointAt(index) as number;
    if (point > 0xffff) {
      // A character outside the BMP is two UTF-16 units: one entry per unit keeps offsets aligned.
      keys.push(cachedLettersOf(String.fromCodePoint(point)), '');
      index++;
    } else keys.push(cachedLettersOf(text.charAt(index)));
  }
  return keys;
}

/** The letter stream of `text` as one string. */
export function letterKey(text: string): string {
  let stream = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 128) {
      stream += asciiLetters[code] as string;
      continue;
    }
    const point = text.codePointAt(index) as number;
    if (point > 0xffff) {
      stream += cachedLettersOf(String.fromCodePoint(point));
      index++;
    } else stream += cachedLettersOf(text.charAt(index));
  }
  return stream;
}

/**
 * The character offset in `text` of each letter of its stream (a ligature's letters share their
 * character's offset).
 */
export function letterOffsets(text: string): number[] {
  const offsets: number[] = [];
  letterKeys(text).forEach((key, offset) => {
    for (let k = 0; k < key.length; k++) offsets.push(offset);
  });
  return offsets;
}

/**
 * Where `quote` stands in `text`, as character offsets `[start, end)`, matching letters only (so a
 * quote re-spaced, de-hyphenated or stripped of markdown is still found); null when absent or when
 * the quote has no letters.
 */
export function findQuote(text: string, quote: string): { start: number; end: number } | null {
  const wanted = letterKey(quote);
  if (wanted.length === 0) return null;
  const offsets = letterOffsets(text);
  const at = offsets.length === 0 ? -1 : letterKey(text).indexOf(wanted);
  if (at < 0) return null;
  return { start: offsets[at] as number, end: (offsets[at + wanted.length - 1] as number) + 1 };
}

/**
 * Where a passage cut from `text` stands in it, when the passage may carry a section heading on
 * its first line or lack bits of the text (figure links): the whole passage, else the passage
 * without its first line, else from where its first letters are to where its last letters are.
 */
export function findPassage(text: string, passage: string): { start: number; end: number } | null {
  const whole = findQuote(text, passage);
  if (whole) return whole;
  const newline = passage.indexOf('\n');
  const body = newline >= 0 ? passage.slice(newline + 1) : passage;
  const withoutHeading = newline >= 0 ? findQuote(text, body) : null;
  if (withoutHeading) return withoutHeading;
  const letters = letterKey(body);
  if (letters.length < 80) return null;
  const stream = letterKey(text);
  const offsets = letterOffsets(text);
  const head = stream.indexOf(letters.slice(0, 40));
  const tail = stream.indexOf(letters.slice(-40), Math.max(0, head));
  if (head < 0 || tail < 0) return null;
  return { start: offsets[head] as number, end: (offsets[tail + 39] as number) + 1 };
}
