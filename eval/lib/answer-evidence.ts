import { analyze } from '../../src/text/analyzer.js';
import { normalizedWords, trigramCoverage } from './evidence.js';

/** Where a reference answer sits in a document's chunks, or why it is not scored. */
export type AnswerEvidence =
  | { scored: true; rule: 'verbatim' | 'overlap'; chunks: number[]; coverage: number }
  | { scored: false; reason: 'yes/no' | 'absent' | 'spread'; coverage: number };

/** Below this share of the answer's content terms in the best chunk the answer is taken as absent. */
export const minimumCoverage = 0.6;

/**
 * The document's best chunk(s) for a reference answer (the reader-qa eval's gold), by this rule:
 *
 * 1. Yes/no and "unanswerable" answers are not scored: their words are not in the text.
 * 2. **Verbatim**: the chunks holding the answer's whole word sequence (normalised: NFKC, lower
 *    case, runs of letters and digits) are the best chunks.
 * 3. **Overlap** (free-text and list answers): each chunk scores the idf-weighted share of the
 *    answer's distinct content terms (stop words dropped, Porter-stemmed, as BM25 analyses text; idf
 *    over the document's chunks, so a term every chunk has counts little) it holds; ties are broken
 *    by the share of the answer's word trigrams. The best chunk must hold at least
 *    `minimumCoverage` (60%) of the content terms, else the answer's content never appears in
 *    the text and it is not scored ("absent").
 * 4. Chunks still tied all count as best; an answer whose best chunks are more than a third of the
 *    document's chunks (at least 2) does not single out a part of the paper (a term of the title,
 *    say, found everywhere) and is not scored ("spread").
 *
 * Only the answer and the chunks are used — never the question, so no ranker's own signal picks
 * the gold.
 */
export function answerEvidence(answer: string, chunks: readonly string[]): AnswerEvidence {
  const trimmed = answer.trim();
  if (/^(yes|no|unanswerable)\b[.!]?$/i.test(trimmed))
    return { scored: false, reason: 'yes/no', coverage: 0 };
  const terms = [...new Set(analyze(trimmed))];
  if (terms.length === 0) return { scored: false, reason: 'absent', coverage: 0 };
  const words = normalizedWords(trimmed).join(' ');
  const chunkWords = chunks.map((chunk) => ` ${normalizedWords(chunk).join(' ')} `);
  const verbatim = chunkWords.flatMap((text, index) => (text.includes(` ${words} `) ? [index] : []));
  const limit = Math.max(2, Math.floor(chunks.length / 3));
  if (verbatim.length > 0) {
    if (verbatim.length > limit) return { scored: false, reason: 'spread', coverage: 1 };
    return { scored: true, rule: 'verbatim', chunks: verbatim, coverage: 1 };
  }
  const chunkTerms = chunks.map((chunk) => new Set(analyze(chunk)));
  const idf = new Map(
    terms.map((term) => {
      const frequency = chunkTerms.filter((set) => set.has(term)).length;
      return [term, Math.log(1 + chunks.length / Math.max(1, frequency))];
    }),
  );
  const totalWeight = terms.reduce((sum, term) => sum + (idf.get(term) as number), 0);
  const scored = chunkTerms.map((set, index) => {
    const held = terms.filter((term) => set.has(term));
    return {
      index,
      weighted: held.reduce((sum, term) => sum + (idf.get(term) as number), 0) / totalWeight,
      coverage: held.length / terms.length,
      trigrams: trigramCoverage(chunks[index] as string, trimmed),
    };
  });
  const top = scored.reduce((best, item) =>
    item.weighted > best.weighted + 1e-9 ||
    (Math.abs(item.weighted - best.weighted) <= 1e-9 && item.trigrams > best.trigrams)
      ? item
      : best,
  );
  if (top.coverage < minimumCoverage) return { scored: false, reason: 'absent', coverage: top.coverage };
  const tied = scored
    .filter(
      (item) =>
        Math.abs(item.weighted - top.weighted) <= 1e-9 && Math.abs(item.trigrams - top.trigrams) <= 1e-9,
    )
    .map((item) => item.index);
  if (tied.length > limit) return { scored: false, reason: 'spread', coverage: top.coverage };
  return { scored: true, rule: 'overlap', chunks: tied, coverage: top.coverage };
}
