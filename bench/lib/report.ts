/** One measured row of a benchmark: a subject and its figures, printed side by side with a baseline. */
export interface BenchRow {
  subject: string;
  metrics: Record<string, number | string>;
}

export interface BenchReport {
  name: string;
  rows: BenchRow[];
  /** Ratios and verdicts against goals, one line each (e.g. "req/s ratio 0.71× (goal ≥ 0.5×)"). */
  summary: string[];
  /**
   * The report's headline ratios (ours / baseline, higher is better), by a stable name: what the
   * CI performance check compares with bench/baseline.json (bench/perf-check.ts, decision 0053).
   */
  ratios?: Record<string, number>;
}

export function formatNumber(value: number | string): string {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function printReport(report: BenchReport): void {
  console.log(`\n## ${report.name}`);
  const columns = [...new Set(report.rows.flatMap((row) => Object.keys(row.metrics)))];
  const header = ['subject', ...columns];
  const table = report.rows.map((row) => [
    row.subject,
    ...columns.map((column) => formatNumber(row.metrics[column] ?? '')),
  ]);
  const widths = header.map((cell, index) =>
    Math.max(cell.length, ...table.map((line) => (line[index] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cells of table) console.log(line(cells));
  for (const text of report.summary) console.log(`- ${text}`);
}

/** "0.71× (goal ≥ 0.5×: met)". */
export function ratioLine(label: string, ratio: number, goal: number, higherIsBetter = true): string {
  const met = higherIsBetter ? ratio >= goal : ratio <= goal;
  return `${label}: ${ratio.toFixed(2)}× (goal ${higherIsBetter ? '≥' : '≤'} ${goal}×: ${met ? 'met' : 'NOT met'})`;
}
