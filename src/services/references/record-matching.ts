import { nameKeyOf, surnameOf } from '../../bibliography/reference-fields.js';
import { normalizeTitle } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { IndexClause, IndexQuery, PaperIndex } from '../../ports/paper-index.js';
import { parseSearchText, toClauses } from '../search-query.js';

/**
 * The checks that decide whether an index record is the work a reference (or a BibTeX entry)
 * describes: title similarity, year within one, the first author's surname. Shared by reference
 * linking and reference checking.
 */

export function titleTokens(title: string): string[] {
  return normalizeTitle(title).split(' ').filter(Boolean);
}

/**
 * Dice coefficient over the longest common subsequence of the two titles' words (0–1), the better
 * of the titles as written and with hyphens inside words closed up: a title broken at a line end
 * may keep a hyphen it does not have ("SciB-ERT", decision 0050), or lose one it has.
 */
export function titleSimilarity(a: string, b: string): number {
  const asWritten = dice(titleTokens(a), titleTokens(b));
  const joinedA = withoutInnerHyphens(a);
  const joinedB = withoutInnerHyphens(b);
  if (joinedA === a && joinedB === b) return asWritten;
  return Math.max(asWritten, dice(titleTokens(joinedA), titleTokens(joinedB)));
}

/** "SciB-ERT: A pre-trained model" → "SciBERT: A pretrained model": both forms of a broken word. */
export function withoutInnerHyphens(text: string): string {
  return text.replace(/(?<=\p{L})[-\u2010\u2011](?=\p{L})/gu, '');
}

function dice(left: string[], right: string[]): number {
  if (left.length === 0 || right.length === 0) return 0;
  return (2 * commonSubsequence(left, right)) / (left.length + right.length);
}

function commonSubsequence(a: string[], b: string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const word of a) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) {
      current[j + 1] =
        word === b[j] ? (previous[j] ?? 0) + 1 : Math.max(previous[j + 1] ?? 0, current[j] ?? 0);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Whether the record's whole title appears, word for word, in the text (normalised), as written
 * or with hyphens inside words closed up on both sides.
 */
export function titleAppearsIn(title: string, text: string): boolean {
  const appears = (wanted: string, within: string) => {
    const normalized = normalizeTitle(wanted);
    return normalized.length > 0 && ` ${normalizeTitle(within)} `.includes(` ${normalized} `);
  };
  return appears(title, text) || appears(withoutInnerHyphens(title), withoutInnerHyphens(text));
}

/** The surname of the record's first author (records print "First Last" or "Last, First"). */
export function firstSurname(authors: readonly string[]): string | null {
  const first = authors[0];
  return first ? surnameOf(first) : null;
}

/** Surnames agree when equal or one ends the other ("zuylen" / "van zuylen"), ignoring spaces and hyphens. */
export function sameSurname(a: string, b: string): boolean {
  const squash = (text: string) => nameKeyOf(text).replace(/[\s-]/g, '');
  const left = squash(a);
  const right = squash(b);
  if (left.length < 2 || right.length < 2) return false;
  return left === right || left.endsWith(right) || right.endsWith(left);
}

/**
 * The index's best records for a title (or a reference's text): its words rank, nothing is
 * required, and for a title its first words as a phrase rank exact titles first — a title of
 * common words ("How can we know what language models know?") has few words left to rank by.
 */
export async function searchRecords(
  index: PaperIndex,
  text: string,
  options: { limit?: number; phrase?: boolean } = {},
): Promise<Paper[]> {
  const parsed = parseSearchText(text.replace(/["“”„]/g, ' '));
  const { words } = toClauses(parsed);
  if (words.length === 0) return [];
  const phrase = titleTokens(text).slice(0, 12).join(' ');
  const should: IndexClause[] =
    options.phrase === true && phrase.includes(' ') ? [{ kind: 'phrase', text: phrase }, ...words] : words;
  const limit = options.limit ?? 5;
  const query: IndexQuery = {
    kind: 'paper',
    must: [],
    should,
    peerReviewedOnly: false,
    sort: 'relevance',
    offset: 0,
    limit,
  };
  return (await index.search(query)).papers;
}
