/** Which scores rank the passages: both fused (default), or one alone (for evaluation and debugging). */
export type RankMode = 'hybrid' | 'dense' | 'bm25';

/**
 * How dense and BM25 scores are combined. `convex`: each list min-max normalised over the
 * document's passages, then `weight × dense + (1 − weight) × bm25`. `rrf`: reciprocal rank fusion,
 * `weight / (k + rank_dense) + (1 − weight) / (k + rank_bm25)` with k = 60.
 */
export interface FusionOptions {
  method: 'convex' | 'rrf';
  /** Weight of the dense score, 0..1. */
  weight: number;
}

/**
 * The default, chosen by measurement (`npm run eval -- pdf-qa reader-qa`;
 * docs/decisions/0012-question-ranking.md): convex combination with dense weight 0.6 (0.4 until
 * readers' questions were measured: 0.6 with the section priors lifted them and SciFact-docs).
 */
export const defaultFusion: FusionOptions = { method: 'convex', weight: 0.6 };

/** One fused score per passage (higher is better). */
export function fuseScores(
  dense: Float32Array,
  bm25: Float32Array,
  mode: RankMode,
  fusion: FusionOptions = defaultFusion,
): Float32Array {
  if (mode === 'dense') return dense;
  if (mode === 'bm25') return bm25;
  if (fusion.method === 'rrf') {
    const denseRanks = ranks(dense);
    const bm25Ranks = ranks(bm25);
    return dense.map(
      (_, index) =>
        fusion.weight / (60 + (denseRanks[index] as number)) +
        (1 - fusion.weight) / (60 + (bm25Ranks[index] as number)),
    );
  }
  const denseNormalized = minMax(dense);
  const bm25Normalized = minMax(bm25);
  return denseNormalized.map(
    (value, index) => fusion.weight * value + (1 - fusion.weight) * (bm25Normalized[index] as number),
  );
}

/** Scales to 0..1 over the list; a constant list (e.g. no BM25 match at all) becomes all zeros. */
function minMax(scores: Float32Array): Float32Array {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const score of scores) {
    if (score < low) low = score;
    if (score > high) high = score;
  }
  const span = high - low;
  return scores.map((score) => (span > 0 ? (score - low) / span : 0));
}

/** 1-based rank of each score (1 = highest); ties share the order of appearance. */
function ranks(scores: Float32Array): Uint32Array {
  const order = [...scores.keys()].sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  const result = new Uint32Array(scores.length);
  order.forEach((index, position) => {
    result[index] = position + 1;
  });
  return result;
}

/**
 * The passages a document's first question embeds before its other passages have vectors: BM25's
 * `count` best (ties: earlier passage first; passages that match no question word come last in
 * document order), then `spread` more taken evenly over the document, so the dense scores are
 * normalised over a range close to the whole document's rather than over BM25's favourites alone.
 */
export function candidatePassages(bm25: Float32Array, count: number, spread = 0): number[] {
  const best = [...bm25.keys()]
    .sort((a, b) => (bm25[b] as number) - (bm25[a] as number) || a - b)
    .slice(0, Math.max(0, count));
  const chosen = new Set(best);
  const total = bm25.length;
  const extra = Math.min(Math.max(0, spread), total - chosen.size);
  for (let k = 0; k < extra; k += 1) {
    // The k-th of `extra` evenly spaced passages, or the next one not yet chosen.
    let index = Math.floor(((k + 0.5) * total) / extra);
    while (chosen.has(index)) index = (index + 1) % total;
    chosen.add(index);
    best.push(index);
  }
  return best;
}

/**
 * Convex fusion when only the `candidates` have dense scores (a document's first question): BM25
 * min-max normalised over every passage as usual, dense over the candidates only; a passage without
 * a vector counts 0 for meaning. Every other passage has a BM25 score no higher than a candidate's, so
 * it never outranks one. With every passage a candidate this is `fuseScores` (convex).
 */
export function fuseCandidates(
  dense: Float32Array,
  bm25: Float32Array,
  candidates: readonly number[],
  fusion: FusionOptions = defaultFusion,
): Float32Array {
  const bm25Normalized = minMax(bm25);
  const fused = bm25Normalized.map((value) => (1 - fusion.weight) * value);
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const index of candidates) {
    const score = dense[index] as number;
    if (score < low) low = score;
    if (score > high) high = score;
  }
  const span = high - low;
  for (const index of candidates) {
    const normalized = span > 0 ? ((dense[index] as number) - low) / span : 0;
    fused[index] = (fused[index] as number) + fusion.weight * normalized;
  }
  return fused;
}
