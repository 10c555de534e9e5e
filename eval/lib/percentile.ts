/** The nearest-rank percentile (`fraction` 0.5 = median, 0.95 = p95) of unsorted values; NaN when there are none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}
