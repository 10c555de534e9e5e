import { analyze, isStopword as isAnyStopword, termOf } from './analyzer.js';

/**
 * Terms of a question: what the extractive pipeline searches with and scores sentences by. No model
 * is involved, so the same question always gives the same keywords. The analysis is the product's
 * one analyzer (`analyzer.ts`) with the words of asking ("describe", "study", "role") dropped too.
 */

/** Whether `word` (lower case) carries no topic of a question to the agent. */
export function isStopword(word: string): boolean {
  return isAnyStopword(word, { askingWords: true });
}

/**
 * The agent compares a question with records and messages to decide whether they speak of the same
 * thing: inflections only (`minimal` stemming, decision 0057), so "general" does not meet "generation".
 */
const agentAnalysis = { askingWords: true, stemming: 'minimal' } as const;

/** Content terms of `text`, inflections off, in order, with repeats (for term frequencies). */
export function contentTerms(text: string): string[] {
  return analyze(text, agentAnalysis);
}

/** The term of one folded word, as `contentTerms` gives it. */
export function agentTerm(word: string): string {
  return termOf(word, agentAnalysis.stemming);
}

const wordPattern = /[\p{L}\p{N}][\p{L}\p{N}'’-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/**
 * Longest word taken as a keyword: longer than any term of a language or a gene or chemical name
 * written as one word; a longer "word" is pasted data (a 1 MB run of letters would be echoed back
 * in every "Searched for:" line).
 */
export const maxKeywordLength = 64;

/**
 * Up to `max` search keywords from a question: content words, distinctive ones first (words with
 * digits or capitals in the original, such as A456V or Dps, then longer words), ties by position.
 * Words longer than `maxKeywordLength` are not keywords. A hyphenated word stays whole ("Rev1-DTD").
 */
export function deriveKeywords(question: string, max = 6): string[] {
  const seen = new Set<string>();
  const candidates: Array<{ word: string; weight: number; position: number }> = [];
  let position = 0;
  for (const match of question.matchAll(wordPattern)) {
    const original = match[0].replace(/['’]s$/, '');
    const word = original.toLowerCase();
    position += 1;
    if (word.length > maxKeywordLength) continue;
    if (isStopword(word) || (word.length < 3 && !/\d/.test(word)) || seen.has(agentTerm(word))) continue;
    seen.add(agentTerm(word));
    // A capital counts only past the first word, where grammar does not explain it.
    const distinctive =
      /\d/.test(original) || /[A-Z]/.test(original.slice(1)) || (/^[A-Z]/.test(original) && position > 1);
    const weight = (distinctive ? 10 : 0) + Math.min(word.length, 12);
    candidates.push({ word: original, weight, position });
  }
  return candidates
    .sort((a, b) => b.weight - a.weight || a.position - b.position)
    .slice(0, max)
    .sort((a, b) => a.position - b.position)
    .map((candidate) => candidate.word);
}
