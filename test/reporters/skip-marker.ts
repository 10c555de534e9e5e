/**
 * The prefix of the console line by which a test file says it skipped tests because something it
 * needs is missing (test/helpers/requirements.ts writes it, skipped-reporter.ts collects it, and
 * vitest.config.ts hides it from the default reporter).
 */
export const skipMarker = 'alexandria-test-skip: ';
