// `npm run perf-check [-- --update]`: the CI performance check (decision 0053). Runs the quick HTTP
// and PDF benches, each ratio measured against its baseline in the same run (so the machine's load
// mostly cancels out), and compares the ratios with the committed bench/baseline.json: a ratio more
// than 20% below its baseline in three runs of its bench fails the check (exit 1). `--update` writes today's ratios as the baseline.
// `--json <folder>`: also writes <folder>/perf-check.json, one test per ratio in the shape of vitest's
// JSON report, so .ci/run counts each ratio as a passed or failed test.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpBench } from './http.bench.js';
import { printReport } from './lib/report.js';
import { pdfBench } from './pdf.bench.js';

const baselinePath = new URL('./baseline.json', import.meta.url);
/** A drop of more than this fraction of the baseline ratio fails. */
const tolerance = 0.2;

interface Baseline {
  note: string;
  ratios: Record<string, number>;
}

const benches = {
  http: () => httpBench({ durationMs: 2000 }),
  pdf: () => pdfBench({ quick: true }),
};
type BenchName = keyof typeof benches;
/** The best ratio seen of each name, and the bench that measures it. */
const measured: Record<string, number> = {};
const measuredBy: Record<string, BenchName> = {};
async function measure(names: BenchName[]): Promise<void> {
  for (const name of names) {
    const report = await benches[name]();
    printReport(report);
    for (const [ratioName, ratio] of Object.entries(report.ratios ?? {})) {
      measured[ratioName] = Math.max(measured[ratioName] ?? Number.NEGATIVE_INFINITY, ratio);
      measuredBy[ratioName] = name;
    }
  }
}
await measure(['http', 'pdf']);

if (process.argv.includes('--update')) {
  const baseline: Baseline = {
    note: 'Ratios of the quick benches (ours / baseline in the same run); written by npm run perf-check -- --update',
    ratios: Object.fromEntries(Object.entries(measured).map(([name, ratio]) => [name, round(ratio)])),
  };
  writeFileSync(baselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
  console.log(`\nbaseline written: ${JSON.stringify(baseline.ratios)}`);
} else {
  const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as Baseline;
  // A drop must show in every run: a bench whose ratio fell below its floor is measured twice more
  // and its best ratio counts (a moment's load on a shared machine lowers one run, a regression all).
  const below = () =>
    Object.entries(baseline.ratios)
      .filter(([name, expected]) => !((measured[name] ?? 0) >= expected * (1 - tolerance)))
      .map(([name]) => name);
  for (let again = 1; again <= 2 && below().length > 0; again += 1) {
    const names = [...new Set(below().flatMap((name) => (measuredBy[name] ? [measuredBy[name]] : [])))];
    if (names.length === 0) break;
    console.log(
      `\n(re-measuring ${names.join(', ')}, run ${again + 1} of 3: ${below().join(', ')} below the floor)`,
    );
    await measure(names);
  }
  const failures: string[] = [];
  console.log('\n## Performance check (fails below 80% of the baseline ratio)');
  for (const [name, expected] of Object.entries(baseline.ratios)) {
    const ratio = measured[name];
    const floor = expected * (1 - tolerance);
    const ok = ratio !== undefined && Number.isFinite(ratio) && ratio >= floor;
    console.log(
      `- ${name}: ${ratio === undefined ? 'not measured' : `${ratio.toFixed(2)}×`} (baseline ${expected.toFixed(2)}×, floor ${floor.toFixed(2)}×): ${ok ? 'ok' : 'DROPPED'}`,
    );
    if (!ok) failures.push(name);
  }
  const jsonAt = process.argv.indexOf('--json');
  const folder = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined;
  if (folder) {
    const total = Object.keys(baseline.ratios).length;
    const report = {
      numPassedTests: total - failures.length,
      numFailedTests: failures.length,
      numFailedTestSuites: 0,
      numPendingTests: 0,
    };
    writeFileSync(join(folder, 'perf-check.json'), `${JSON.stringify(report)}\n`);
  }
  if (failures.length > 0) {
    console.log(`performance check FAILED: ${failures.join(', ')}`);
    process.exitCode = 1;
  } else console.log('performance check passed');
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
