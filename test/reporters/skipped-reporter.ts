import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { skipMarker } from './skip-marker.js';

/**
 * Prints, after a run, one line per test file that skipped tests because something it needs is
 * missing (test/helpers/requirements.ts): how many tests, which file, what is missing and what to do.
 * vitest.config.ts hides the marked console lines from the default reporter.
 */
export default class SkippedReporter implements Reporter {
  /** Per file id: what is missing, grouped by why (the same why for several things reads as one). */
  private readonly reasons = new Map<string, Map<string, string[]>>();
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (!log.content.includes(skipMarker)) return;
    // Written while the file is collected (its id), or from inside a test or suite (its file's id).
    const task = log.taskId ? this.vitest?.state.idMap.get(log.taskId) : undefined;
    const key = task?.file?.id ?? log.taskId ?? '';
    const reasons = this.reasons.get(key) ?? new Map<string, string[]>();
    // vitest may hand several console lines over as one log.
    for (const line of log.content.split('\n')) {
      if (!line.startsWith(skipMarker)) continue;
      const { what, why } = JSON.parse(line.slice(skipMarker.length)) as { what: string; why: string };
      const whats = reasons.get(why) ?? [];
      if (!whats.includes(what)) whats.push(what);
      reasons.set(why, whats);
    }
    this.reasons.set(key, reasons);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    const byId = new Map(testModules.map((module) => [module.id, module]));
    for (const [id, reasons] of this.reasons) {
      const why = [...reasons].map(([reason, whats]) => `${whats.join(', ')} ${reason}`).join('; ');
      const module = byId.get(id);
      if (!module) {
        lines.push(`skipped tests: ${why}`);
        continue;
      }
      const tests = [...module.children.allTests()];
      const skipped = tests.filter((test) => test.result().state === 'skipped').length;
      if (skipped === 0) continue;
      const what =
        tests.length === 1
          ? 'the only test'
          : `${skipped === tests.length ? 'all' : `${skipped} of`} ${tests.length} tests`;
      lines.push(`skipped ${what} of ${module.relativeModuleId}: ${why}`);
    }
    if (lines.length > 0) process.stdout.write(`\n${lines.sort().join('\n')}\n`);
  }
}
