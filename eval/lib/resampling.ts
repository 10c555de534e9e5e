/**
 * How much of a lever's gain survives on queries its setting was not chosen on, and how sure the
 * gain is: k-fold cross-validated selection and a paired bootstrap over per-query scores. Both take
 * per-query scores (one array per setting, the same queries in the same order) and a seed, so a
 * run prints the same figures every time.
 */

/** A small deterministic generator in [0, 1) (a linear congruential one; enough for resampling). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return values.length > 0 ? sum / values.length : 0;
}

/** The positions 0…n−1 shuffled (Fisher–Yates). */
function shuffled(n: number, random: () => number): number[] {
  const order = [...Array(n).keys()];
  for (let i = n - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

export interface CrossValidated {
  /** Mean over repeats of the held-out score (each query scored once per repeat). */
  score: number;
  /** Each query's held-out score, averaged over the repeats (for a bootstrap of the difference). */
  perQuery: number[];
  /** How often each setting was picked, over every fold of every repeat. */
  picks: number[];
}

/**
 * k-fold selection: the queries shuffled into `folds` parts `repeats` times; in each fold the
 * setting with the best mean on the other parts is picked and scored on the held-out part.
 * `table[s][q]` is setting s's score on query q. Ties pick the earlier setting.
 */
export function crossValidate(
  table: readonly (readonly number[])[],
  options: { folds?: number; repeats?: number; seed?: number } = {},
): CrossValidated {
  const folds = options.folds ?? 5;
  const repeats = options.repeats ?? 20;
  const random = seededRandom(options.seed ?? 14);
  const queries = table[0]?.length ?? 0;
  const perQuery = new Array<number>(queries).fill(0);
  const picks = new Array<number>(table.length).fill(0);
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    const fold = new Array<number>(queries);
    shuffled(queries, random).forEach((query, position) => {
      fold[query] = position % folds;
    });
    for (let held = 0; held < folds; held += 1) {
      let best = 0;
      let bestMean = Number.NEGATIVE_INFINITY;
      table.forEach((scores, setting) => {
        let sum = 0;
        let count = 0;
        for (let query = 0; query < queries; query += 1) {
          if (fold[query] === held) continue;
          sum += scores[query] as number;
          count += 1;
        }
        const value = count > 0 ? sum / count : 0;
        if (value > bestMean) {
          bestMean = value;
          best = setting;
        }
      });
      picks[best] = (picks[best] as number) + 1;
      const chosen = table[best] as readonly number[];
      for (let query = 0; query < queries; query += 1) {
        if (fold[query] === held) perQuery[query] = (perQuery[query] as number) + (chosen[query] as number);
      }
    }
  }
  const averaged = perQuery.map((sum) => sum / Math.max(1, repeats));
  return { score: mean(averaged), perQuery: averaged, picks };
}

export interface PairedDifference {
  /** Mean of `a − b` over the queries. */
  difference: number;
  /** 2.5th and 97.5th percentiles of the resampled mean difference. */
  low: number;
  high: number;
  /** Queries where a scores higher / lower than b (by more than 1e-9). */
  better: number;
  worse: number;
}

/**
 * Paired bootstrap of the mean per-query difference a − b: the queries resampled with replacement
 * `resamples` times, the percentile interval of the resampled means.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: { resamples?: number; seed?: number } = {},
): PairedDifference {
  const resamples = options.resamples ?? 2000;
  const random = seededRandom(options.seed ?? 36);
  const differences = a.map((value, query) => value - (b[query] as number));
  const n = differences.length;
  const means: number[] = [];
  for (let round = 0; round < resamples; round += 1) {
    let sum = 0;
    for (let draw = 0; draw < n; draw += 1) sum += differences[Math.floor(random() * n)] as number;
    means.push(sum / Math.max(1, n));
  }
  means.sort((x, y) => x - y);
  const at = (fraction: number) =>
    means[Math.min(means.length - 1, Math.max(0, Math.floor(fraction * means.length)))] ?? 0;
  return {
    difference: mean(differences),
    low: at(0.025),
    high: at(0.975),
    better: differences.filter((value) => value > 1e-9).length,
    worse: differences.filter((value) => value < -1e-9).length,
  };
}
