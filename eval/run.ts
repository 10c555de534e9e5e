// `npm run eval [-- name…] [--quick] [--provider openai]`: measures retrieval and answer quality on ../shared/data/eval,
// prints the figures and goal verdicts, and writes .eval/results.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { type EvalReport, evaluations } from './index.js';

// `--provider openai` (or `--provider=openai`): the model-backed agent evaluations go through the
// OpenAI-compatible path (decision 0060); its value is not an evaluation's name.
const args = process.argv.slice(2);
const providerAt = args.indexOf('--provider');
const provider =
  args.find((arg) => arg.startsWith('--provider='))?.slice('--provider='.length) ??
  (providerAt >= 0 ? args[providerAt + 1] : undefined);
if (provider !== undefined && provider !== 'openai' && provider !== 'local') {
  console.error(`--provider must be openai or local, got ${provider ?? '(nothing)'}`);
  process.exit(2);
}
const wanted = args.filter(
  (arg, index) => !arg.startsWith('-') && !(providerAt >= 0 && index === providerAt + 1),
);
const quick = args.includes('--quick');
const selected = evaluations.filter((evaluation) =>
  wanted.length === 0 ? !evaluation.onlyWhenNamed : wanted.includes(evaluation.name),
);
if (selected.length === 0) {
  console.error(
    `No evaluation named ${wanted.join(', ')}; known: ${evaluations.map((e) => e.name).join(', ')}`,
  );
  process.exit(2);
}
console.log(`# Alexandria evaluations (${new Date().toISOString()}${quick ? ', quick' : ''})`);
const reports: EvalReport[] = [];
for (const evaluation of selected) {
  const started = performance.now();
  try {
    const report = await evaluation.run({ quick, provider });
    reports.push(report);
    console.log(`\n## ${report.name}`);
    for (const [metric, value] of Object.entries(report.metrics)) {
      console.log(`${metric.padEnd(32)} ${typeof value === 'number' ? value.toFixed(4) : value}`);
    }
    for (const line of report.summary) console.log(`- ${line}`);
    console.log(`(${evaluation.name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    console.error(`\n## ${evaluation.name} FAILED: ${(error as Error).stack ?? error}`);
    process.exitCode = 1;
  }
}
mkdirSync('.eval', { recursive: true });
writeFileSync('.eval/results.json', JSON.stringify(reports, null, 2));
