import { splitSentences } from '../text/sentences.js';
import { nameKeyOf, surnameOf } from './reference-fields.js';
import { type ChunkText, paragraphKey, paragraphsOf, type ReferenceList } from './references.js';

/**
 * In-text citations linked to the entries of a reference list: numeric (`[12]`, `[3, 5–7]`,
 * `(1, 2)`), labelled (`[Ada93]`) and author–year (`(Smith et al., 2020)`, `Smith and Jones
 * (2019)`, `(Devlin et al. 2019; Radford et al. 2019)`). A context is the citing sentence, with
 * the chunk it is in. Paragraphs of the reference list itself are not searched.
 */
export interface CitationContext {
  /** Index into `ReferenceList.entries`. */
  entry: number;
  /** The citing sentence. */
  sentence: string;
  /** The citation as printed ("[3, 5–7]", "Smith et al., 2020"). */
  marker: string;
  /** 1-based chunk holding the sentence. */
  chunk: number;
}

/** Citing sentences kept per entry (a survey may cite one work fifty times). */
const maxContextsPerEntry = 20;
const maxRange = 50;

const bracketGroup =
  /\[(\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?)*\s*)\]/g;
const parenGroup = /\((\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?)*\s*)\)/g;
const labelGroup =
  /\[([\p{L}][\p{L}+\-.]*\s?\d{2,4}[a-z]?(?:\s*[,;]\s*[\p{L}][\p{L}+\-.]*\s?\d{2,4}[a-z]?)*)\]/gu;
const surname = "\\p{Lu}[\\p{L}'’-]+(?:\\s(?:van|von|de|der|den|del|da|la|le|du)\\s?\\p{Lu}[\\p{L}'’-]+)*";
const authorYear = new RegExp(
  `(${surname})(?:\\s+et\\s+al\\.?|\\s+(?:and|&)\\s+(${surname}))?,?\\s+\\(?((?:1[89]|20)\\d{2})([a-z])?(?:,\\s*([a-z])\\b)?`,
  'gu',
);
/** Words before a parenthesised number that make it an equation, figure or list item, not a citation. */
const notCitation =
  /(?:eq(?:uation)?s?\.?|fig(?:ure)?s?\.?|tables?|sections?|steps?|stages?|appendix|:|;)\s*$/i;

export function findCitationContexts(chunks: readonly ChunkText[], list: ReferenceList): CitationContext[] {
  const resolve = resolverFor(chunks, list);
  const contexts: CitationContext[] = [];
  const perEntry = new Map<number, number>();
  for (const paragraph of paragraphsOf(chunks)) {
    if (list.paragraphs.has(paragraphKey(paragraph.chunk, paragraph.index))) continue;
    if (paragraph.text.startsWith('#') || paragraph.text.startsWith('|')) continue;
    for (const sentence of splitSentences(paragraph.text)) {
      const seen = new Set<number>();
      for (const { entry, marker } of resolve(sentence)) {
        const count = perEntry.get(entry) ?? 0;
        if (seen.has(entry) || count >= maxContextsPerEntry) continue;
        seen.add(entry);
        perEntry.set(entry, count + 1);
        contexts.push({ entry, sentence, marker, chunk: paragraph.chunk });
      }
    }
  }
  return contexts;
}

type Resolver = (sentence: string) => Array<{ entry: number; marker: string }>;

function resolverFor(chunks: readonly ChunkText[], list: ReferenceList): Resolver {
  if (list.style === 'label') {
    const byLabel = new Map(list.entries.map((entry, index) => [entry.label?.replace(/\s/g, ''), index]));
    return (sentence) =>
      [...sentence.matchAll(labelGroup)].flatMap((match) =>
        (match[1] ?? '').split(/\s*[,;]\s*/).flatMap((label) => {
          const entry = byLabel.get(label.replace(/\s/g, ''));
          return entry === undefined ? [] : [{ entry, marker: match[0] }];
        }),
      );
  }
  if (list.style === 'numbered') {
    const byNumber = new Map(list.entries.map((entry, index) => [entry.number, index]));
    const group = numericGroupOf(chunks, list);
    if (!group) return () => [];
    return (sentence) =>
      [...sentence.matchAll(group)].flatMap((match) => {
        const before = sentence.slice(0, match.index ?? 0);
        if (group === parenGroup && (before.trim() === '' || notCitation.test(before))) return [];
        return expandNumbers(match[1] ?? '').flatMap((number) => {
          const entry = byNumber.get(number);
          return entry === undefined ? [] : [{ entry, marker: match[0] }];
        });
      });
  }
  return authorYearResolver(list);
}

/**
 * `[n]` or `(n)`: whichever the body uses more often with numbers of the list. Parentheses need
 * a tenth of the list cited (at least 3 numbers): a few "(1)" and "(2)" are equation numbers in a
 * paper that cites by superscripts, which the text layer does not mark.
 */
function numericGroupOf(chunks: readonly ChunkText[], list: ReferenceList): RegExp | null {
  const body = paragraphsOf(chunks)
    .filter((paragraph) => !list.paragraphs.has(paragraphKey(paragraph.chunk, paragraph.index)))
    .map((paragraph) => paragraph.text)
    .join('\n');
  const cited = (pattern: RegExp) => {
    const numbers = new Set<number>();
    let count = 0;
    for (const match of body.matchAll(pattern)) {
      const found = expandNumbers(match[1] ?? '');
      if (!found.every((number) => number >= 1 && number <= list.entries.length + 5)) continue;
      count++;
      for (const number of found) numbers.add(number);
    }
    return { count, distinct: numbers.size };
  };
  const brackets = cited(bracketGroup);
  const parens = cited(parenGroup);
  if (brackets.count >= parens.count) return brackets.count > 0 ? bracketGroup : null;
  return parens.distinct >= Math.max(3, list.entries.length / 10) ? parenGroup : null;
}

/** "3, 5–7" → [3, 5, 6, 7] (ranges longer than 50 are taken as two numbers). */
export function expandNumbers(text: string): number[] {
  const numbers: number[] = [];
  for (const part of text.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[-–—]\s*(\d+)$/.exec(part.trim());
    if (range) {
      const from = Number(range[1]);
      const to = Number(range[2]);
      if (to > from && to - from <= maxRange) for (let n = from; n <= to; n++) numbers.push(n);
      else numbers.push(from, to);
    } else if (/^\d+$/.test(part.trim())) numbers.push(Number(part.trim()));
  }
  return numbers;
}

/**
 * Author–year citations: each "Surname [et al. | and Other], 2020[a]" in a sentence names the
 * entry whose first author has that surname and whose printed year (with its letter) is that year;
 * with "and Other", the second author must match too. Unmatched names (years in prose) are dropped.
 */
function authorYearResolver(list: ReferenceList): Resolver {
  const keyed = list.entries.map((entry, index) => ({
    index,
    first: entry.authors[0] ? surnameOf(entry.authors[0]) : null,
    second: entry.authors[1] ? surnameOf(entry.authors[1]) : null,
    year: entry.yearLabel?.slice(0, 4) ?? null,
    letter: entry.yearLabel?.slice(4) ?? '',
  }));
  return (sentence) =>
    [...sentence.matchAll(authorYear)].flatMap((match) => {
      const name = nameKeyOf(match[1] ?? '');
      const other = match[2] ? nameKeyOf(match[2]) : null;
      const letters = [match[4], match[5]].filter((letter): letter is string => Boolean(letter));
      const candidates = keyed.filter(
        (entry) =>
          entry.year === match[3] &&
          entry.first !== null &&
          sameSurname(entry.first, name) &&
          (other === null || (entry.second !== null && sameSurname(entry.second, other))),
      );
      const chosen =
        letters.length > 0
          ? candidates.filter((entry) => letters.includes(entry.letter))
          : candidates.filter((entry) => entry.letter === '' || candidates.length === 1).slice(0, 1);
      return chosen.map((entry) => ({ entry: entry.index, marker: match[0] }));
    });
}

/** "van zuylen" matches "zuylen" and "van zuylen"; hyphens and spaces are ignored. */
function sameSurname(printed: string, cited: string): boolean {
  const squash = (text: string) => text.replace(/[\s-]/g, '');
  return squash(printed) === squash(cited) || squash(printed).endsWith(squash(cited));
}
