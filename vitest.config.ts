import { defineConfig } from 'vitest/config';
import { skipMarker } from './test/reporters/skip-marker.js';

/**
 * The long tier (decision 0070): suites that take minutes each because they stop real dependencies
 * for tens of seconds, kill real processes, read every PDF of the shared data to the last passage
 * vector, or run whole agent conversations on the real local chat model. `npm test` (the default suite, under 15 minutes on 2 cores) leaves them out;
 * `npm run test:long` runs them (vitest.long.config.ts) and `.ci/run` runs both.
 */
export const longFiles = [
  // Upload, every chunk and a question over every passage's vector, for each of the 18 shared PDFs.
  'test/integration/documents-pdfs.test.ts',
  // PostgreSQL restarted and stopped, Redis, S3 and the standby stopped for 20 s each, under load.
  'test/integration/dependency-faults.test.ts',
  // A 50,000-reference PDF beside another tenant's searches.
  'test/integration/heavy-isolation.test.ts',
  // The server and the CLI killed with SIGKILL mid-write, on both deployments.
  'test/integration/crash-recovery.test.ts',
  'test/integration/deletion-crash.test.ts',
  // Whole agent runs on the real local chat model (Qwen2.5-1.5B on the CPU): 20–40 s per question.
  'test/integration/chat-local-model.test.ts',
  'test/integration/agent-untrusted-local.test.ts',
];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...longFiles],
    environment: 'node',
    // Tests reach loopback only, and spawned services get ALEXANDRIA_SOURCES=none (decision 0045).
    setupFiles: ['test/setup/loopback-only.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: true,
    maxWorkers: 2,
    // A file that skips because something it needs is missing says so in one line at the end
    // (test/helpers/requirements.ts); its console line is for that reporter only.
    reporters: ['default', './test/reporters/skipped-reporter.ts'],
    onConsoleLog: (log) => !log.includes(skipMarker),
  },
});
