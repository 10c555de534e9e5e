import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints every test file's duration after a run, slowest first (.ci/run uses it, so CI output
 * records where the time goes): import and collection plus every test and hook, in seconds.
 */
export default class DurationsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules.map((module) => {
      const diagnostic = module.diagnostic();
      const milliseconds = diagnostic.collectDuration + diagnostic.setupDuration + diagnostic.duration;
      return { file: module.relativeModuleId, seconds: milliseconds / 1000, state: module.state() };
    });
    rows.sort((a, b) => b.seconds - a.seconds);
    const total = rows.reduce((sum, row) => sum + row.seconds, 0);
    const lines = rows.map(
      (row) =>
        `${row.seconds.toFixed(1).padStart(7)} s  ${row.file}${row.state === 'failed' ? '  (failed)' : ''}`,
    );
    process.stdout.write(
      `\nTest file durations (${rows.length} files, ${total.toFixed(0)} s in all, slowest first):\n${lines.join('\n')}\n`,
    );
  }
}
