/**
 * Text normalisation and de-hyphenation. pdf.js already applies NFKC to what it extracts (so the
 * fi/fl/ffi ligature glyphs come out as letters); this is applied again to the joined text so that
 * every producer's output ends up in the same form.
 */

/** Spacing accents as TeX sets them (before the letter, as a glyph of their own) → combining marks. */
const combiningOf: Record<string, string> = {
  '\u00b4': '\u0301',
  '\u02c7': '\u030c',
  '\u00a8': '\u0308',
  '\u02dc': '\u0303',
  '\u02d8': '\u0306',
  '\u02d9': '\u0307',
  '\u02da': '\u030a',
  '\u02dd': '\u030b',
  '\u00b8': '\u0327',
  '\u02c6': '\u0302',
  '\u00af': '\u0304',
};
const detachedAccent =
  /([\u00b4\u02c7\u00a8\u02dc\u02d8\u02d9\u02da\u02dd\u00b8\u02c6\u00af]|\s[\u0300-\u036f])\s?(\p{L})/gu;

/**
 * NFKC, single spaces, no control or invisible formatting characters (soft hyphens included), and
 * accents that TeX drew as separate glyphs ("Teˇsanovi ́c") put back on their letter ("Tešanović").
 */
export function normalizeText(text: string): string {
  return text
    .replace(
      detachedAccent,
      (_, accent: string, letter: string) => `${letter}${combiningOf[accent] ?? accent.trim()}`,
    )
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}|[\u00ad\u200b\u200c\u200e\u200f\u2060\ufeff]/gu, '')
    .trim();
}

const wordPattern = /[\p{L}\p{M}]+(?:[-\u2010\u2011][\p{L}\p{M}]+)*/gu;

/**
 * Lower-cased words of the document, hyphenated compounds both whole and by part. Used to decide
 * whether a word broken at a line end is one word ("multilin- gual") or a compound ("data- driven").
 * The two fragments around each line-end hyphen are left out: they are what is being decided.
 */
export function collectVocabulary(paragraphs: Iterable<string[]>): Set<string> {
  const vocabulary = new Set<string>();
  const add = (text: string) => {
    for (const match of text.matchAll(wordPattern)) {
      const word = match[0].toLowerCase().replace(/[\u2010\u2011]/g, '-');
      vocabulary.add(word);
      if (word.includes('-')) for (const part of word.split('-')) vocabulary.add(part);
    }
  };
  for (const lines of paragraphs) {
    let cutStart = false;
    for (const line of lines) {
      let text = cutStart ? line.replace(lineStartWord, '') : line;
      cutStart = lineEndHyphen.test(text);
      if (cutStart) text = text.replace(lineEndHyphen, '');
      add(text);
    }
  }
  return vocabulary;
}

const lineEndHyphen = /([\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*)[-\u2010\u2011\u00ad]$/u;
const lineStartWord = /^([\p{Ll}\p{M}]+)/u;

/**
 * Joins the lines of one paragraph. A word hyphenated at a line end is joined without the hyphen
 * when the joined word occurs elsewhere in the document, kept as a compound when the hyphenated
 * form occurs (or both halves are words of their own), and joined otherwise (TeX's syllable
 * breaks outnumber compounds broken at their hyphen). A line ending in a dash joins tight.
 */
export function joinLines(lines: string[], vocabulary: Set<string>): string {
  let text = '';
  for (const line of lines) {
    if (text.length === 0) {
      text = line;
      continue;
    }
    const last = text.charAt(text.length - 1);
    // A URL broken at the line end continues on the next line ("https://doi." + "org/10.1111/…").
    if (
      './_#?=&-'.includes(last) &&
      /(?:https?:\/\/|www\.)\S*[./_#?=&-]$/.test(text.slice(-200)) &&
      /^[\w./#%-]/.test(line)
    ) {
      text += line;
      continue;
    }
    // Only the end of the paragraph so far matters (and scanning it all again per line is quadratic).
    // (The pattern is tried from every position, so it runs only where a hyphen ends the text.)
    const hyphenated = '-\u2010\u2011\u00ad'.includes(last) ? lineEndHyphen.exec(text.slice(-80)) : null;
    const next = lineStartWord.exec(line);
    if (hyphenated && text.endsWith('\u00ad') && next) {
      text = text.slice(0, -1) + line;
    } else if (hyphenated) {
      const left = (hyphenated[1] ?? '').toLowerCase();
      const right = next?.[1]?.toLowerCase();
      if (right === undefined || keepsHyphen(left, right, vocabulary))
        text = text.replace(/[\u2010\u2011]$/, '-') + line;
      else text = text.slice(0, -1) + line;
    } else if (
      /[—–]$/.test(text) ||
      (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u.test(text) &&
        /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(line))
    ) {
      // Chinese and Japanese have no spaces between words, so a line break is no word break.
      text += line;
    } else {
      text += ` ${line}`;
    }
  }
  return text;
}

/** Endings that are syllables of the word before them, never words of their own. */
const suffixes = new Set(
  'ing ings ed er ers est ment ments ness tion tions sion sions ity ities able ible ance ence ous ive ives ism ist ists ize ized izes izing ization ally ular'.split(
    ' ',
  ),
);

function keepsHyphen(left: string, right: string, vocabulary: Set<string>): boolean {
  const lastPart = left.split('-').pop() ?? left;
  if (vocabulary.has(`${lastPart}${right}`)) return false;
  if (vocabulary.has(`${lastPart}-${right}`)) return true;
  if (left.includes('-') || lastPart.length === 1 || /\p{N}/u.test(lastPart)) return true;
  if (suffixes.has(right)) return false;
  // "properly- structured": an adverb in -ly before a word is a compound, not a syllable break.
  if (lastPart.length >= 5 && lastPart.endsWith('ly') && right.length >= 4) return true;
  return lastPart.length >= 3 && right.length >= 3 && vocabulary.has(lastPart) && vocabulary.has(right);
}
