import { contentTerms } from '../text/keywords.js';
import { topicTerms } from './conversation.js';
import type { Evidence, RetrievedSource } from './source-ledger.js';

/** The question's key terms: its topic terms (content words that are not study talk), once each. */
export function keyTerms(question: string): string[] {
  return [...new Set(topicTerms(question))];
}

/**
 * How many key terms a related record must share: two, more for long questions (a third of them, at
 * most four: the rule the extractive answer already quotes sentences by), all of them when the
 * question has fewer. A record with fewer is about something else: sharing "DNA" does not make a
 * paper on DNA repair an answer to "Which DNA topology does Dps condense fastest?".
 */
export function termsNeeded(keys: number): number {
  return Math.min(keys, Math.max(2, Math.min(4, Math.ceil(keys / 3))));
}

/** Whether `text` (a record's title, abstract and what the run read of it) shares the question's key terms. */
export function relatedText(keys: string[], text: string): boolean {
  if (keys.length === 0) return true;
  const terms = new Set(contentTerms(text));
  return keys.filter((key) => terms.has(key)).length >= termsNeeded(keys.length);
}

/** The retrieved records related to the question (their title, abstract and read text together). */
export function relatedSources(
  question: string,
  sources: RetrievedSource[],
  evidence: Evidence[],
): RetrievedSource[] {
  const keys = keyTerms(question);
  return sources.filter((source) => relatedText(keys, recordText(source, evidence)));
}

/**
 * What the run has of a record, one text: its title, abstract and the full-text passages it read.
 * The answerability judge and the citation-support check both read a record through this.
 */
export function recordText(source: RetrievedSource, evidence: Evidence[]): string {
  const read = evidence
    .filter((item) => item.source === source && item.kind === 'fulltext')
    .map((item) => item.text);
  return [source.paper.title, source.paper.abstract ?? '', ...read].join('\n');
}

/**
 * The answer when nothing retrieved is related to the question (or, `onSubject`, records on its
 * subject were found but none answers it, decision 0064): it says so, and names what was searched
 * and what was found, instead of an answer from a model's memory.
 */
export function notAnsweredText(searched: string, found: RetrievedSource[], onSubject = false): string {
  const titles = found
    .slice(0, 5)
    .map((source) => `“${source.paper.title.replace(/\s+/g, ' ').slice(0, 160)}”`)
    .join('; ');
  const records =
    found.length === 0
      ? 'no record was found'
      : `${found.length} record(s) were found (${titles}), ${onSubject ? 'none of which answers the question' : "none of them about the question's subject"}`;
  return `The papers found do not answer this. Searched for: ${searched}; ${records}. Try other words, or add papers on the subject to a project.\n`;
}
