/**
 * Dense pseudo-relevance feedback inside BM25's candidates (issue 14, measured in `fusionLevers`):
 * after the service's first fusion (convex mix of min-max BM25 score and min-max cosine), the top k
 * candidates stand in for relevant documents, and every candidate's dense score is recomputed
 * against them before a second fusion of the same kind. No text is embedded beyond what a search
 * already has: the query's vector and the candidates' stored vectors.
 *
 * - Rocchio on vectors: q′ = normalize(α·q + (1 − α)·m), m the mean (or first-pass-score-weighted
 *   mean) of the k feedback vectors; the dense score is cos(q′, d).
 * - Neighbour agreement: α·cos(q, d) + (1 − α)·mean over the feedback documents other than d of
 *   cos(d, f). With d itself counted this is Rocchio up to a positive per-query factor (|q′|), i.e.
 *   the same order after min-max; leaving d out is what differs (a feedback document no longer
 *   agrees with itself).
 *
 * The feedback documents come from the first fusion (`fused`) or from BM25's order alone (`bm25`:
 * known before the query is embedded).
 */

export interface PrfCandidates {
  /** BM25 scores, BM25 order. */
  bm25: readonly number[];
  /** Each candidate's cosine with the query (unit vectors: dot product). */
  cosine: readonly number[];
  /** Cosines between candidates, n × n, row-major (`candidateGram`). */
  gram: Float64Array;
}

export interface DensePrfSetting {
  label: string;
  kind: 'rocchio' | 'agreement';
  source: 'fused' | 'bm25';
  /** Feedback documents. */
  k: number;
  /** Weight of the query (Rocchio) or of the candidate's own cosine (agreement). */
  alpha: number;
  /** Feedback vectors weighted by their first-pass score (normalised, in [0, 1]) instead of equally. */
  weighted: boolean;
  /** Dense weight of the second fusion. */
  denseWeight: number;
}

/** The shipped first fusion's dense weight (ALEXANDRIA_HYBRID_DENSE_WEIGHT, decision 0036). */
export const firstPassDenseWeight = 0.6;

/** Dot products between the candidates' vectors (row-major n × n). */
export function candidateGram(vectors: readonly Float32Array[]): Float64Array {
  const n = vectors.length;
  const gram = new Float64Array(n * n);
  for (let i = 0; i < n; i += 1) {
    const a = vectors[i] as Float32Array;
    for (let j = i; j < n; j += 1) {
      const b = vectors[j] as Float32Array;
      let sum = 0;
      for (let d = 0; d < a.length; d += 1) sum += (a[d] as number) * (b[d] as number);
      gram[i * n + j] = sum;
      gram[j * n + i] = sum;
    }
  }
  return gram;
}

export function minMax(scores: readonly number[]): number[] {
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const score of scores) {
    if (score < low) low = score;
    if (score > high) high = score;
  }
  const span = high - low;
  return scores.map((score) => (span > 0 ? (score - low) / span : 0));
}

/** The service's convex mix (`fuseByScore`): (1 − w)·minmax(BM25) + w·minmax(dense). */
export function convexMix(bm25: readonly number[], dense: readonly number[], denseWeight: number): number[] {
  const lexical = minMax(bm25);
  const semantic = minMax(dense);
  return lexical.map((value, i) => (1 - denseWeight) * value + denseWeight * (semantic[i] as number));
}

/** Positions by descending score, ties in BM25 order. */
export function descendingOrder(scores: readonly number[]): number[] {
  return [...scores.keys()].sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
}

/** The second fusion's scores (higher first) of the candidates under one setting. */
export function densePrfScores(candidates: PrfCandidates, setting: DensePrfSetting): number[] {
  const { bm25, cosine, gram } = candidates;
  const n = cosine.length;
  const first = setting.source === 'fused' ? convexMix(bm25, cosine, firstPassDenseWeight) : minMax(bm25);
  const feedback = descendingOrder(first).slice(0, Math.min(setting.k, n));
  const rawWeights = feedback.map((position) => (setting.weighted ? (first[position] as number) : 1));
  const total = rawWeights.reduce((sum, weight) => sum + weight, 0);
  const weights =
    total > 0 ? rawWeights.map((weight) => weight / total) : feedback.map(() => 1 / feedback.length);
  const alpha = setting.alpha;
  const dense = new Array<number>(n);
  if (setting.kind === 'rocchio') {
    // |q′|² = α² + 2α(1 − α)·Σ wⱼ cos(q, fⱼ) + (1 − α)²·Σ wⱼ wₗ cos(fⱼ, fₗ) (q and the vectors unit length).
    let towardQuery = 0;
    let centroid = 0;
    feedback.forEach((j, a) => {
      towardQuery += (weights[a] as number) * (cosine[j] as number);
      feedback.forEach((l, b) => {
        centroid += (weights[a] as number) * (weights[b] as number) * (gram[j * n + l] as number);
      });
    });
    const norm = Math.sqrt(
      Math.max(1e-12, alpha * alpha + 2 * alpha * (1 - alpha) * towardQuery + (1 - alpha) ** 2 * centroid),
    );
    for (let d = 0; d < n; d += 1) {
      let toFeedback = 0;
      feedback.forEach((j, a) => {
        toFeedback += (weights[a] as number) * (gram[j * n + d] as number);
      });
      dense[d] = (alpha * (cosine[d] as number) + (1 - alpha) * toFeedback) / norm;
    }
  } else {
    for (let d = 0; d < n; d += 1) {
      let sum = 0;
      let count = 0;
      for (const j of feedback) {
        if (j === d) continue;
        sum += gram[j * n + d] as number;
        count += 1;
      }
      // A lone feedback document has no other to agree with: its own cosine stands.
      const agreement = count > 0 ? sum / count : (cosine[d] as number);
      dense[d] = alpha * (cosine[d] as number) + (1 - alpha) * agreement;
    }
  }
  return convexMix(bm25, dense, setting.denseWeight);
}

/**
 * The settings measured: Rocchio with k 1/3/5/10, α 0.5–0.9, plain or score-weighted mean (the same
 * for k 1), feedback from the first fusion or from BM25; neighbour agreement (leave-one-out) with
 * k 3/5/10, α 0.5–0.9, from either; each fused again with dense weight 0.5/0.6/0.7.
 */
export function densePrfGrid(): DensePrfSetting[] {
  const settings: DensePrfSetting[] = [];
  const alphas = [0.5, 0.6, 0.7, 0.8, 0.9];
  const denseWeights = [0.5, 0.6, 0.7];
  for (const source of ['fused', 'bm25'] as const) {
    for (const k of [1, 3, 5, 10]) {
      for (const weighted of k === 1 ? [false] : [false, true]) {
        for (const alpha of alphas) {
          for (const denseWeight of denseWeights) {
            settings.push({
              label: `Rocchio, feedback top ${k} by ${source === 'fused' ? 'first fusion' : 'BM25'}${weighted ? ' (score-weighted)' : ''}, α ${alpha}, dense weight ${denseWeight}`,
              kind: 'rocchio',
              source,
              k,
              alpha,
              weighted,
              denseWeight,
            });
          }
        }
      }
    }
    for (const k of [3, 5, 10]) {
      for (const alpha of alphas) {
        for (const denseWeight of denseWeights) {
          settings.push({
            label: `neighbour agreement, top ${k} by ${source === 'fused' ? 'first fusion' : 'BM25'}, α ${alpha}, dense weight ${denseWeight}`,
            kind: 'agreement',
            source,
            k,
            alpha,
            weighted: false,
            denseWeight,
          });
        }
      }
    }
  }
  return settings;
}
