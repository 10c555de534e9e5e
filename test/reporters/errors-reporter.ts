import { writeFileSync } from 'node:fs';
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Records the errors vitest caught outside any test (an unhandled rejection, a worker that died):
 * they fail the run (vitest exits 1) although every test passed, and the default reporter prints
 * them in the middle of a long log. .ci/run names the file in ALEXANDRIA_TEST_ERRORS_FILE and
 * prints it again after everything else, beside the closing line that counts each as a failure.
 */
export default class ErrorsReporter implements Reporter {
  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>): void {
    const file = process.env.ALEXANDRIA_TEST_ERRORS_FILE;
    if (!file) return;
    const lines = errors.map((error, index) => {
      const origin = describeOrigin(error);
      const stack = (error.stack ?? '').split('\n').slice(0, 8).join('\n');
      return `${index + 1}. ${error.name ?? 'Error'}: ${error.message}${origin}\n${stack}`;
    });
    writeFileSync(file, lines.length ? `${lines.join('\n\n')}\n` : '');
  }
}

/** vitest names the test file (and test) an error surfaced in when it knows it. */
function describeOrigin(error: SerializedError): string {
  const named = error as SerializedError & { VITEST_TEST_PATH?: string; VITEST_TEST_NAME?: string };
  const where = [named.VITEST_TEST_PATH, named.VITEST_TEST_NAME].filter(Boolean).join(' › ');
  return where ? ` (in ${where})` : '';
}
