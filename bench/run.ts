// `npm run bench [-- name…]`: runs the benchmarks (all but the long ones such as `soak`, or those named), each with its baseline in the
// same run, prints tables and ratios, and writes .bench/results.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { benchmarks } from './index.js';
import { type BenchReport, printReport } from './lib/report.js';

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const quick = process.argv.includes('--quick');
const selected = benchmarks.filter((bench) =>
  wanted.length === 0 ? !bench.onlyWhenNamed : wanted.includes(bench.name),
);
if (selected.length === 0) {
  console.error(
    `No benchmark named ${wanted.join(', ')}; known: ${benchmarks.map((bench) => bench.name).join(', ')}`,
  );
  process.exit(2);
}
console.log(
  `# Alexandria benchmarks (${new Date().toISOString()}, node ${process.version}${quick ? ', quick' : ''})`,
);
const reports: BenchReport[] = [];
for (const bench of selected) {
  const started = performance.now();
  try {
    const report = await bench.run({ quick });
    reports.push(report);
    printReport(report);
    console.log(`(${bench.name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    console.error(`\n## ${bench.name} FAILED: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  }
}
mkdirSync('.bench', { recursive: true });
writeFileSync('.bench/results.json', JSON.stringify(reports, null, 2));
