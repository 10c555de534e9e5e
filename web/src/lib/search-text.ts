/**
 * What the search box sends (decision 0045). A question or a sentence goes as `query`: its words
 * rank the results (BM25, then meaning), any of them may match, so "how to detect hallucinations in
 * abstractive summarization" finds the papers on hallucination in summarization first instead of
 * the one record that happens to hold every word. A few keyword-like words go as `keywords`: every
 * word must appear (the API relaxes that when no record has them all), which keeps the counts and
 * the non-relevance sorts (most cited, newest) about the topic.
 *
 * The rule: `query` when the text ends with a question mark, starts with a question word, or has
 * five words or more (a "quoted phrase" counts as one word); `keywords` otherwise.
 */
export type SearchParameter = 'query' | 'keywords';

const questionWords = new Set([
  'how',
  'what',
  'which',
  'why',
  'when',
  'where',
  'who',
  'whom',
  'whose',
  'is',
  'are',
  'was',
  'were',
  'does',
  'do',
  'did',
  'can',
  'could',
  'should',
  'would',
  'will',
  'has',
  'have',
]);

/** Words of a typed search, a quoted phrase counting as one. */
function wordsOf(text: string): string[] {
  const phrases = text.match(/"[^"]*"/g) ?? [];
  const rest = text.replace(/"[^"]*"/g, ' ');
  const words = rest.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word));
  return [...phrases.filter((phrase) => /[\p{L}\p{N}]/u.test(phrase)), ...words];
}

/** Which parameter carries `text` (see the rule above). */
export function searchParameter(text: string): SearchParameter {
  const trimmed = text.trim();
  if (trimmed.endsWith('?')) return 'query';
  const first = (trimmed.split(/\s+/)[0] ?? '').toLowerCase().replace(/[^\p{L}]/gu, '');
  if (questionWords.has(first)) return 'query';
  return wordsOf(trimmed).length >= 5 ? 'query' : 'keywords';
}
