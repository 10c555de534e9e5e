import { normalizeTitle } from '../../src/domain/identifiers.js';
import type { Paper } from '../../src/domain/paper.js';

/**
 * Gold links by construction (issue 17): the index records whose titles (≥ 5 words) appear word
 * for word, normalised, in a PDF's text, other than the PDF itself. A 5-word shingle set of the
 * text finds the candidates without scanning the text once per record.
 */
export const goldTitleWords = 5;

export interface TitleRecord {
  key: string;
  title: string;
  normalized: string;
}

/** Records whose normalised title has at least `goldTitleWords` words, keyed by their first identity key. */
export function titleRecords(papers: Iterable<{ key: string; paper: Paper }>): TitleRecord[] {
  const records: TitleRecord[] = [];
  for (const { key, paper } of papers) {
    const normalized = normalizeTitle(paper.title);
    if (normalized.split(' ').length >= goldTitleWords) records.push({ key, title: paper.title, normalized });
  }
  return records;
}

/** The records whose title the text contains, less the PDF's own (by its title). */
export function goldLinks(
  text: string,
  records: readonly TitleRecord[],
  ownTitle: string | null,
): Set<string> {
  const normalized = ` ${normalizeTitle(text)} `;
  const words = normalized.trim().split(' ');
  const shingles = new Set<string>();
  for (let at = 0; at + goldTitleWords <= words.length; at++) {
    shingles.add(words.slice(at, at + goldTitleWords).join(' '));
  }
  const own = ownTitle ? normalizeTitle(ownTitle) : null;
  const gold = new Set<string>();
  for (const record of records) {
    const head = record.normalized.split(' ').slice(0, goldTitleWords).join(' ');
    if (!shingles.has(head) || record.normalized === own) continue;
    if (normalized.includes(` ${record.normalized} `)) gold.add(record.key);
  }
  return gold;
}
