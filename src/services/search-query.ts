import type { IndexClause } from '../ports/paper-index.js';

/**
 * Turns the free text of `keywords` and `query` into index clauses. Text in double quotes (also
 * escaped `\"…\"` and typographic “…”) is a phrase; everything else is split into words, with
 * hyphenated and apostrophe words kept whole (`off-target`, `COVID-19`, `Alzheimer's`; the index
 * matches them as short phrases). Common English function words are dropped from free words — they
 * carry no evidence in BM25 and would make every document a candidate — unless nothing else is left.
 *
 * A parameter uses at most `maxSearchWords` words, each word of a phrase counted: phrases first, in
 * order (a phrase past the budget is cut to its first words, which every match of the whole phrase
 * also has), then free words. The rest is counted in `omitted` so that the hint can say so.
 */

/** Parsed text: its phrases and its free words, lower-cased and de-duplicated, in order. */
export interface ParsedText {
  phrases: string[];
  words: string[];
  /** Words of the text left out because it had more than `maxSearchWords` (0 when all were used). */
  omitted: number;
}

/**
 * At most this many words per parameter, phrase words included: a pasted paragraph must not become
 * a 300-way OR, and a quoted run of 900 common words must not cost seconds (each phrase word reads
 * that word's whole position list, about 3 ms per common word per 30 000 records).
 */
export const maxSearchWords = 32;

const quoted = /\\?["“”„]([^"“”„]*)\\?["“”„]/g;
const word = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

// Lucene's English stop set plus question words and auxiliaries that natural-language questions add.
const stopwords = new Set(
  (
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with what which who whom whose when where why how do does did done can could ' +
    'should would may might must shall has have had having been being am were from about than so its our ' +
    'we you your i me my he she his her them those any all some also very more most other using use used ' +
    'between among via vs versus based'
  ).split(' '),
);

export function parseSearchText(text: string | undefined): ParsedText {
  if (!text) return { phrases: [], words: [], omitted: 0 };
  const phrases: string[] = [];
  const rest = text.replace(quoted, (_match, inner: string) => {
    const phrase = (inner.match(word) ?? []).join(' ').toLowerCase();
    if (phrase) phrases.push(phrase);
    return ' ';
  });
  const all = (rest.replace(/\\/g, ' ').match(word) ?? []).map((token) =>
    token.toLowerCase().replace(/’/g, "'"),
  );
  const content = all.filter((token) => !stopwords.has(token));
  return withinBudget(dedupe(phrases), dedupe(content.length > 0 || phrases.length > 0 ? content : all));
}

/** Keeps the first `maxSearchWords` words, phrases first, and counts what was left out. */
function withinBudget(phrases: string[], words: string[]): ParsedText {
  let budget = maxSearchWords;
  let omitted = 0;
  const keptPhrases: string[] = [];
  for (const phrase of phrases) {
    const phraseWords = phrase.split(' ');
    const kept = phraseWords.slice(0, budget);
    omitted += phraseWords.length - kept.length;
    budget -= kept.length;
    if (kept.length > 0) keptPhrases.push(kept.join(' '));
  }
  const keptWords = words.slice(0, budget);
  omitted += words.length - keptWords.length;
  return { phrases: dedupe(keptPhrases), words: keptWords, omitted };
}

/** A parsed text as clauses: each phrase one `phrase` clause (a one-word phrase is a term), each word a `term`. */
export function toClauses(parsed: Pick<ParsedText, 'phrases' | 'words'>): {
  phrases: IndexClause[];
  words: IndexClause[];
} {
  return {
    phrases: parsed.phrases.map((text) =>
      text.includes(' ') ? { kind: 'phrase' as const, text } : { kind: 'term' as const, text },
    ),
    words: parsed.words.map((text) => ({ kind: 'term' as const, text })),
  };
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
