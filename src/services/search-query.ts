import type { IndexClause } from '../ports/paper-index.js';

/**
 * Turns the free text of `keywords` and `query` into index clauses. Text in double quotes (also
 * escaped `\"…\"` and typographic “…”) is a phrase; everything else is split into words, with
 * hyphenated and apostrophe words kept whole (`off-target`, `COVID-19`, `Alzheimer's`; the index
 * matches them as short phrases). Common English function words are dropped from free words — they
 * carry no evidence in BM25 and would make every document a candidate — unless nothing else is left.
 */

/** Parsed text: its phrases and its free words, lower-cased and de-duplicated, in order. */
export interface ParsedText {
  phrases: string[];
  words: string[];
}

/** At most this many clauses per parameter: a pasted paragraph must not become a 300-way OR. */
export const maxClauses = 32;

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
  if (!text) return { phrases: [], words: [] };
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
  return {
    phrases: dedupe(phrases).slice(0, maxClauses),
    words: dedupe(content.length > 0 || phrases.length > 0 ? content : all).slice(0, maxClauses),
  };
}

/** A parsed text as clauses: each phrase one `phrase` clause (a one-word phrase is a term), each word a `term`. */
export function toClauses(parsed: ParsedText): { phrases: IndexClause[]; words: IndexClause[] } {
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
