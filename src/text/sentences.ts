import { Bm25Index, defaultBm25 } from './bm25.js';
import { contentTerms } from './keywords.js';

/** Abbreviations after which a period does not end a sentence. */
const abbreviations = new Set(
  'al e.g i.e fig figs eq eqs ref refs vs approx ca cf no nos vol pp dr prof mr mrs ms st sp spp resp et etc inc ltd co corp jr sr ph.d'.split(
    ' ',
  ),
);

/**
 * Sentences of a text (an abstract or a chunk in markdown). Headings, figure lines and table rows
 * are dropped; line breaks inside a paragraph are joined; a period after an abbreviation ("et al.",
 * "Fig.") or an initial ("J. Smith") does not end a sentence.
 */
export function splitSentences(text: string): string[] {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .filter((line) => !/^\s*(#|!\[|\||<!--)/.test(line))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((paragraph) => paragraph.length > 0);
  const sentences: string[] = [];
  for (const paragraph of paragraphs) {
    let start = 0;
    for (const match of paragraph.matchAll(/[.!?]["”’)]?\s+(?=["“([]?[A-Z0-9])/g)) {
      const end = (match.index ?? 0) + 1;
      const before = paragraph.slice(start, end);
      const lastWord = /([\p{L}.]+)\.$/u.exec(before)?.[1] ?? '';
      if (abbreviations.has(lastWord.toLowerCase()) || /^\p{Lu}$/u.test(lastWord)) continue;
      sentences.push(paragraph.slice(start, end + match[0].length - 1).trim());
      start = (match.index ?? 0) + match[0].length;
    }
    const rest = paragraph.slice(start).trim();
    if (rest.length > 0) sentences.push(rest);
  }
  return sentences;
}

export interface ScoredSentence<T> {
  text: string;
  score: number;
  /** Which query terms the sentence contains. */
  matched: number;
  origin: T;
}

export interface RankOptions {
  /** Sentences shorter than this are skipped (fragments, captions). */
  minLength?: number;
  /** Sentences longer than this are skipped (run-on extraction artefacts). */
  maxLength?: number;
}

/**
 * Ranks the sentences of several texts against a question (see `rankPassages`), skipping fragments
 * and run-on extraction artefacts by length.
 */
export function rankSentences<T>(
  question: string,
  texts: Array<{ text: string; origin: T }>,
  options: RankOptions = {},
): Array<ScoredSentence<T>> {
  const minLength = options.minLength ?? 30;
  const maxLength = options.maxLength ?? 900;
  const sentences: Array<{ text: string; origin: T }> = [];
  for (const { text, origin } of texts) {
    for (const sentence of splitSentences(text)) {
      if (sentence.length >= minLength && sentence.length <= maxLength)
        sentences.push({ text: sentence, origin });
    }
  }
  return rankPassages(question, sentences);
}

/**
 * Ranks passages against a question with BM25 (`Bm25Index`, each passage a document, IDF over the
 * pool), plus a bonus for query word pairs that occur side by side. Passages with no query term are
 * dropped. Deterministic: ties keep the input order.
 */
export function rankPassages<T>(
  question: string,
  passages: Array<{ text: string; origin: T }>,
): Array<ScoredSentence<T>> {
  const questionTerms = contentTerms(question);
  const queryTerms = [...new Set(questionTerms)];
  if (queryTerms.length === 0 || passages.length === 0) return [];
  const queryPairs = new Set(questionTerms.slice(1).map((term, index) => `${questionTerms[index]} ${term}`));
  const terms = passages.map((passage) => contentTerms(passage.text));
  const bm25 = Bm25Index.ofTerms(terms, defaultBm25, contentTerms).scoreTerms(queryTerms);
  const scored = passages.map((passage, index) => {
    const own = terms[index] as string[];
    const present = new Set(own);
    let score = bm25[index] as number;
    for (let position = 1; position < own.length; position += 1) {
      if (queryPairs.has(`${own[position - 1]} ${own[position]}`)) score += 0.5;
    }
    const matched = queryTerms.filter((term) => present.has(term)).length;
    return { text: passage.text, score, matched, origin: passage.origin, index };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ index: _index, ...rest }) => rest);
}
