import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  needsSharedData,
  repositoryRoot,
  sharedData,
  sharedDataFolder,
  skipBecause,
} from './requirements.js';

const run = promisify(execFile);
const vitest = join(repositoryRoot, 'node_modules', 'vitest', 'vitest.mjs');
const sample = 'test/fixtures/requirements/needs-missing-data.sample.ts';
const sampleConfig = 'test/fixtures/requirements/vitest.config.ts';

/** vitest on the sample file, as `npm test` runs it (the project's config, so the same reporters). */
async function runSample(env: Record<string, string>) {
  return run(process.execPath, [vitest, 'run', '--config', sampleConfig], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
  }).then(
    (result) => ({ code: 0, output: result.stdout + result.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );
}

describe('sharedDataFolder', () => {
  it('is ../shared/data beside the repository unless ALEXANDRIA_TEST_DATA is set', () => {
    expect(sharedDataFolder(undefined)).toBe(join(repositoryRoot, '..', 'shared', 'data'));
    expect(sharedDataFolder('/srv/data')).toBe('/srv/data');
    expect(sharedDataFolder('data/real')).toBe(join(repositoryRoot, 'data', 'real'));
  });
});

describe('skipping', () => {
  const saved = process.env.ALEXANDRIA_TEST_REQUIRE_ALL;
  afterEach(() => {
    if (saved === undefined) delete process.env.ALEXANDRIA_TEST_REQUIRE_ALL;
    else process.env.ALEXANDRIA_TEST_REQUIRE_ALL = saved;
  });

  it('says skip for missing shared data, and not for data that is there', () => {
    delete process.env.ALEXANDRIA_TEST_REQUIRE_ALL;
    expect(needsSharedData('no-such-folder/never.jsonl')).toBe(true);
    expect(needsSharedData()).toBe(false);
    expect(sharedData.length).toBeGreaterThan(0);
  });

  it('throws instead under ALEXANDRIA_TEST_REQUIRE_ALL=1, naming what is missing and what to do', () => {
    process.env.ALEXANDRIA_TEST_REQUIRE_ALL = '1';
    expect(() => skipBecause('Redis', 'not reachable at 127.0.0.1:1 — start it')).toThrow(
      'ALEXANDRIA_TEST_REQUIRE_ALL=1 and Redis not reachable at 127.0.0.1:1 — start it',
    );
  });

  it('prints one line with the file, the count and the reason; fails the file under REQUIRE_ALL', async () => {
    const skipped = await runSample({ ALEXANDRIA_TEST_REQUIRE_ALL: '0' });
    expect(skipped.code, skipped.output).toBe(0);
    expect(skipped.output).toContain('1 passed | 3 skipped');
    const lines = skipped.output.split('\n').filter((line) => line.includes('no-such-folder'));
    expect(lines).toEqual([
      `skipped 3 of 4 tests of ${sample}: no-such-folder/never.jsonl, no-such-folder/nor-this.pdf not in the shared test data at ${sharedData} — set ALEXANDRIA_TEST_DATA to the folder that holds it (README, Running the tests); a sample server not reachable at 127.0.0.1:1 — start it`,
    ]);

    const required = await runSample({ ALEXANDRIA_TEST_REQUIRE_ALL: '1' });
    expect(required.code).toBe(1);
    expect(required.output).toContain(
      'ALEXANDRIA_TEST_REQUIRE_ALL=1 and no-such-folder/never.jsonl not in the shared test data at',
    );
  }, 120_000);
});
