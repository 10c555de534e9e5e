/**
 * The nearest-rank percentile of `values` in any order (`fraction` 0.5 = median, 0.95 = p95): the
 * smallest value with at least `fraction` of the values at or below it; NaN when there are none.
 * The one percentile of benchmarks, evals and tests.
 */
export function percentile(values: ArrayLike<number>, fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}
