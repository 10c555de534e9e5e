import { stemmer } from 'stemmer';

/**
 * The SQLite index's tokeniser (`porter unicode61 remove_diacritics 2`) rewritten for adapters that
 * tokenise outside SQLite (PostgreSQL): runs of letters, digits and private-use characters are
 * tokens, everything else separates; case folded; diacritics removed; Porter's stemmer on tokens of
 * 3 to 64 characters. Both adapters must tokenise alike for their BM25 to agree:
 * `test/contract/index-tokenizer.test.ts` compares this with FTS5's own tokens on real corpora.
 */
const tokenRun = /[\p{L}\p{N}\p{Co}]+/gu;
const combiningMark = /\p{M}/gu;
const plainLower = /^[\p{L}\p{N}]+$/u;

/** The index tokens of `text`, in order. */
export function indexTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of fold(text).matchAll(tokenRun)) tokens.push(stem(match[0]));
  return tokens;
}

/** Lower case without diacritics (only letters that decompose into a base and marks change). */
function fold(text: string): string {
  const lower = text.toLowerCase();
  // Fast path: ASCII text has nothing to strip.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (/^[\u0000-\u007f]*$/.test(lower)) return lower;
  return lower.replace(/[\u00c0-\u024f\u1e00-\u1eff]/g, (char) =>
    char.normalize('NFD').replace(combiningMark, ''),
  );
}

/** Stems of words seen so far: real text repeats its words, and the stemmer is the costly part. */
const stems = new Map<string, string>();

function stem(token: string): string {
  if (token.length < 3 || token.length > 64) return token;
  let stemmed = stems.get(token);
  if (stemmed === undefined) {
    stemmed = plainLower.test(token) ? stemmer(token) : token;
    if (stems.size >= 500_000) stems.clear();
    stems.set(token, stemmed);
  }
  return stemmed;
}
