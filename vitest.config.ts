import { defineConfig } from 'vitest/config';
import { skipMarker } from './test/reporters/skip-marker.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
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
