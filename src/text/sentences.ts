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
 * Ranks passages against a question with BM25 (each passage a document, IDF over the pool), plus a
 * bonus for query word pairs that occur side by side. Passages with no query term are dropped.
 * Deterministic: ties keep the input order.
 */
export function rankPassages<T>(
  question: string,
  passages: Array<{ text: string; origin: T }>,
): Array<ScoredSentence<T>> {
  const questionTerms = contentTerms(question);
  const queryTerms = [...new Set(questionTerms)];
  if (queryTerms.length === 0 || passages.length === 0) return [];
  const queryPairs = new Set(questionTerms.slice(1).map((term, index) => `${questionTerms[index]} ${term}`));
  const pool = passages.map((passage) => ({ ...passage, terms: contentTerms(passage.text) }));
  const documentFrequency = new Map<string, number>();
  for (const entry of pool) {
    for (const term of new Set(entry.terms))
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const averageLength = pool.reduce((sum, entry) => sum + entry.terms.length, 0) / pool.length || 1;
  const k1 = 1.2;
  const b = 0.75;
  const scored = pool.map((entry, index) => {
    const frequencies = new Map<string, number>();
    for (const term of entry.terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    let score = 0;
    let matched = 0;
    for (const term of queryTerms) {
      const frequency = frequencies.get(term) ?? 0;
      if (frequency === 0) continue;
      matched += 1;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (pool.length - df + 0.5) / (df + 0.5));
      const lengthNorm = 1 - b + (b * entry.terms.length) / averageLength;
      score += (idf * frequency * (k1 + 1)) / (frequency + k1 * lengthNorm);
    }
    for (let position = 1; position < entry.terms.length; position += 1) {
      if (queryPairs.has(`${entry.terms[position - 1]} ${entry.terms[position]}`)) score += 0.5;
    }
    return { text: entry.text, score, matched, origin: entry.origin, index };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ index: _index, ...rest }) => rest);
}
