/**
 * Terms of a question: what the extractive pipeline searches with and scores sentences by. No model
 * is involved, so the same question always gives the same keywords.
 */

const stopwords = new Set(
  `a about above after again against all also am an and any are aren't as at be because been before
  being below between both but by can cannot could did do does doing done down during each either few
  for from further had has have having he her here hers herself him himself his how however i if in
  into is isn't it its itself just let like may me might more most must my myself no nor not now of
  off on once only or other others our ours ourselves out over own per same shall she should since so
  some such than that the their theirs them themselves then there these they this those through thus
  to too under until up upon us very via was we were what when where whether which while who whom
  whose why will with within without would yet you your yours yourself yourselves
  among amongst across already always anyone anything around become becomes certain either else etc
  ever every give given gives go goes got get gets know known make makes made many much need needs
  often one ones onto part particular perhaps please rather really regarding say says see seem seems
  several show shows shown tell tells thing things think two use used uses using way ways well whatever
  wherever whichever following describe described explain find found list mention mentioned paper
  papers study studies research article articles literature evidence result results according question
  answer answers based relation related relationship effect effects role roles`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

const wordPattern = /[\p{L}\p{N}][\p{L}\p{N}'’-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

/**
 * Lower-cased word tokens of `text`, possessives dropped. A hyphenated word gives its parts
 * ("Rev1-DTD" → rev1, dtd), so it meets the same words written apart.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(wordPattern)) {
    const word = match[0].toLowerCase().replace(/['’]s$/, '');
    for (const part of word.split('-')) if (part.length > 0) tokens.push(part);
  }
  return tokens;
}

/**
 * A light suffix stemmer (plural, -ing, -ed, -ance/-ant, -ence/-ent), applied alike to questions
 * and sentences so "mutations"/"mutation" and "resistant"/"resistance" meet. Tokens with digits
 * (gene names, variants such as A456V) are left alone.
 */
export function stem(token: string): string {
  if (/\d/.test(token) || token.length <= 3) return token;
  if (token.endsWith('ies') && token.length > 4) return `${token.slice(0, -3)}y`;
  if (token.endsWith('sses')) return token.slice(0, -2);
  if (token.endsWith('s') && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  if (token.endsWith('ing') && token.length > 5) return token.slice(0, -3);
  if (token.endsWith('ed') && token.length > 4) return token.slice(0, -2);
  // resistant/resistance, dependent/dependence: one stem.
  if (token.length >= 7 && /(ance|ence)$/.test(token)) return token.slice(0, -4);
  if (token.length >= 7 && /(ant|ent)$/.test(token)) return token.slice(0, -3);
  return token;
}

export function isStopword(token: string): boolean {
  return stopwords.has(token);
}

/** Stemmed content terms of `text`, in order, with repeats (for term frequencies). */
export function contentTerms(text: string): string[] {
  return tokenize(text)
    .filter((token) => !stopwords.has(token) && (token.length > 1 || /\d/.test(token)))
    .map(stem);
}

/**
 * Longest word taken as a keyword: longer than any term of a language or a gene or chemical name
 * written as one word; a longer "word" is pasted data (a 1 MB run of letters would be echoed back
 * in every "Searched for:" line).
 */
export const maxKeywordLength = 64;

/**
 * Up to `max` search keywords from a question: content words, distinctive ones first (words with
 * digits or capitals in the original, such as A456V or Dps, then longer words), ties by position.
 * Words longer than `maxKeywordLength` are not keywords.
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
    if (stopwords.has(word) || (word.length < 3 && !/\d/.test(word)) || seen.has(stem(word))) continue;
    seen.add(stem(word));
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
