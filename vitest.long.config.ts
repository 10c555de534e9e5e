import { defineConfig } from 'vitest/config';
import base, { longFiles } from './vitest.config.js';

/**
 * The long tier (decision 0070): `npm run test:long`, or one of its files with
 * `npx vitest run --config vitest.long.config.ts <file>`. `.ci/run` runs it after `npm test`.
 */
export default defineConfig({
  ...base,
  test: { ...base.test, include: longFiles, exclude: ['**/node_modules/**'] },
});
