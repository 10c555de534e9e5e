import { normalizeTitle } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';

/**
 * The text a record's vector is computed from: its title, then its abstract when it has one (the
 * model reads its first 254 tokens). Changing either drops the stored vector (the index adapters).
 */
export function recordVectorText(paper: Pick<Paper, 'title' | 'abstract'>): string {
  const title = paper.title.trim();
  const abstract = paper.abstract?.trim();
  return abstract ? `${title}. ${abstract}` : title;
}

/** Reciprocal-rank fusion constant (the usual 60; measured in decision 0036). */
export const rrfK = 60;

/**
 * A new order of BM25's top candidates (positions 0…n−1 of `vectors`, BM25 order): each scores
 * 1/(k + BM25 rank) + 1/(k + dense rank), ranks from 1, the dense rank counted among the candidates
 * that have a vector (by dot product with `query`: vectors are unit length, so cosine); a candidate
 * without a vector keeps its BM25 term only. Ties keep BM25 order. Returns the positions.
 */
export function fuseByRank(
  query: Float32Array,
  vectors: ReadonlyArray<Float32Array | undefined>,
  k: number = rrfK,
): number[] {
  const similarity = vectors.map((vector) => (vector ? dot(query, vector) : Number.NEGATIVE_INFINITY));
  const dense = vectors
    .map((vector, position) => ({
      position,
      has: vector !== undefined,
      similarity: similarity[position] as number,
    }))
    .filter((entry) => entry.has)
    .sort((a, b) => b.similarity - a.similarity || a.position - b.position);
  const denseRank = new Map(dense.map((entry, index) => [entry.position, index + 1]));
  const score = vectors.map((_, position) => {
    const rank = denseRank.get(position);
    return 1 / (k + position + 1) + (rank === undefined ? 0 : 1 / (k + rank));
  });
  return vectors
    .map((_, position) => position)
    .sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
}

/**
 * A new order of BM25's top candidates by a convex mix of scores: `denseWeight` × cosine with
 * `query` + (1 − `denseWeight`) × BM25 score, each min-max normalised over the candidates. A
 * candidate without a vector (not embedded yet) takes the median normalised cosine of those that
 * have one, so it neither sinks nor rises for lack of it. Ties keep BM25 order. Returns the positions.
 * On SciFact this beat RRF (decision 0036): RRF keeps only the order of each list, while the score
 * gaps say how much better BM25's or the model's first candidates are than the rest.
 */
export function fuseByScore(
  query: Float32Array,
  vectors: ReadonlyArray<Float32Array | undefined>,
  bm25: readonly number[],
  denseWeight: number,
): number[] {
  const cosine = vectors.map((vector) => (vector ? dot(query, vector) : undefined));
  const known = cosine.filter((value): value is number => value !== undefined);
  const low = Math.min(...known);
  const span = Math.max(...known) - low;
  const normalized = cosine.map((value) =>
    value === undefined ? undefined : span > 0 ? (value - low) / span : 0,
  );
  const sorted = normalized.filter((value): value is number => value !== undefined).sort((a, b) => a - b);
  const median = sorted.length > 0 ? (sorted[Math.floor(sorted.length / 2)] as number) : 0;
  const bm25Low = Math.min(...bm25);
  const bm25Span = Math.max(...bm25) - bm25Low;
  const score = vectors.map((_, position) => {
    const lexical = bm25Span > 0 ? ((bm25[position] ?? bm25Low) - bm25Low) / bm25Span : 0;
    return denseWeight * (normalized[position] ?? median) + (1 - denseWeight) * lexical;
  });
  return vectors
    .map((_, position) => position)
    .sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
}

function dot(a: Float32Array, b: Float32Array): number {
  const length = Math.min(a.length, b.length);
  let sum = 0;
  for (let index = 0; index < length; index += 1) sum += (a[index] as number) * (b[index] as number);
  return sum;
}

/**
 * Known-item search kept: when the query is a candidate's title (normalised), those candidates go
 * first, in the fused order. A title is a poor dense query for its own title-and-abstract vector
 * (MiniLM ranked the paper 2nd to 9th among BM25's top 100 for 5 of 30 ACL titles, and RRF moved
 * 2 of them off the top), while BM25 finds it first (decision 0036).
 */
export function keepExactTitlesFirst(order: number[], titles: readonly string[], query: string): number[] {
  const wanted = normalizeTitle(query);
  if (!wanted) return order;
  const exact = order.filter((position) => normalizeTitle(titles[position] ?? '') === wanted);
  if (exact.length === 0) return order;
  return [...exact, ...order.filter((position) => !exact.includes(position))];
}
