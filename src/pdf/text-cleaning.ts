import { isEnglishWord } from './english-words.js';

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
const hasHyphen = /[-\u2010\u2011]/;
const otherHyphens = /[\u2010\u2011]/g;

/**
 * Lower-cased words of the document, hyphenated compounds both whole and by part. Used to decide
 * whether a word broken at a line end is one word ("multilin- gual") or a compound ("data- driven").
 * The two fragments around each line-end hyphen are left out: they are what is being decided.
 */
export function collectVocabulary(paragraphs: Iterable<string[]>): Set<string> {
  const vocabulary = new Set<string>();
  const add = (text: string) => {
    // One pass of exec (no match iterator), the hyphen spellings unified only in a word that has one.
    wordPattern.lastIndex = 0;
    for (let match = wordPattern.exec(text); match !== null; match = wordPattern.exec(text)) {
      let word = match[0].toLowerCase();
      if (!hasHyphen.test(word)) {
        vocabulary.add(word);
        continue;
      }
      word = word.replace(otherHyphens, '-');
      vocabulary.add(word);
      for (const part of word.split('-')) vocabulary.add(part);
    }
  };
  for (const lines of paragraphs) {
    let cutStart = false;
    for (const line of lines) {
      let text: string = cutStart ? line.replace(lineStartWord, '') : line;
      // The pattern is tried from every position: only where a hyphen ends the line (decision 0053).
      cutStart = endsInHyphen(text) && lineEndHyphen.test(text);
      if (cutStart) text = text.replace(lineEndHyphen, '');
      add(text);
    }
  }
  return vocabulary;
}

const lineEndHyphen = /([\p{L}\p{M}\p{N}]+(?:-[\p{L}\p{M}\p{N}]+)*)[-\u2010\u2011\u00ad]$/u;
const endsInHyphen = (text: string) => '-\u2010\u2011\u00ad'.includes(text.charAt(text.length - 1) || ' ');
const lineStartWord = /^([\p{L}\p{M}]+)/u;

/**
 * Joins the lines of one paragraph. A word hyphenated at a line end is joined without the hyphen
 * only where the joined word is a word (decision 0050): the document writes it whole elsewhere
 * ("SciB- ERT" where the text says "SciBERT"), or the English word list has it ("repre- sentation").
 * The hyphen stays where the document writes the hyphenated form, where a capital opens the
 * second half of a compound ("Real- World"), or where both halves are words ("data- driven").
 * A line ending in a dash joins tight.
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
      const left = hyphenated[1] ?? '';
      const right = next?.[1];
      if (right !== undefined && joinsAcrossLine(left, right, vocabulary)) text = text.slice(0, -1) + line;
      else text = text.replace(/[\u2010\u2011]$/, '-') + line;
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

/** Whether `left-` at a line end and `right` at the next line's start are one word. */
function joinsAcrossLine(left: string, right: string, vocabulary: Set<string>): boolean {
  const lastPart = left.split('-').pop() ?? left;
  const joined = `${lastPart}${right}`.toLowerCase();
  if (vocabulary.has(joined)) return true;
  if (vocabulary.has(`${lastPart}-${right}`.toLowerCase())) return false;
  if (left.includes('-') || lastPart.length === 1 || /\p{N}/u.test(lastPart)) return false;
  // A capital after the break opens the second word of a compound ("Real- World", "Pre- Trained"),
  // unless the whole word is in capitals ("INTRO- DUCTION").
  const capitals = (word: string) => !/\p{Ll}/u.test(word);
  if (/^\p{Lu}/u.test(right) && !(capitals(lastPart) && capitals(right))) return false;
  if (isEnglishWord(joined)) return true;
  const lowerRight = right.toLowerCase();
  if (suffixes.has(lowerRight)) return true;
  // TeX leaves three letters at least after a break: "call-by-need", "just-in-time" broke at a hyphen.
  if (lowerRight.length <= 2) return false;
  // "properly- structured": an adverb in -ly before a word is a compound, not a syllable break.
  const lowerLeft = lastPart.toLowerCase();
  if (lowerLeft.length >= 5 && lowerLeft.endsWith('ly') && lowerRight.length >= 4) return false;
  // Both halves words of their own: a compound broken at its hyphen ("data- driven"). Short
  // dictionary words are also common name syllables ("Tay- fun", "Char- lin"): 4 letters at least.
  const isWord = (word: string) => vocabulary.has(word) || (word.length >= 4 && isEnglishWord(word));
  if (lowerLeft.length >= 3 && lowerRight.length >= 3 && isWord(lowerLeft) && isWord(lowerRight))
    return false;
  return true;
}
