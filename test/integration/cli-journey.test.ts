// The command line end to end, as a user runs it: the built `bin/alexandria.js` (dist/) in its own
// processes under the Node running the tests, on a fresh data folder, with generated data only.
// The smoke tier (scripts/smoke.mjs) runs this file under Node 22 and 24 too;
// test/integration/installed-cli.test.ts runs the same journey on a copy installed by npm install -g.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { cliJourney } from '../helpers/cli-journey.js';

const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'alexandria.js');
const children = new Set<ChildProcess>();
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'alexandria-journey-'));
  // dist/ is built by `npm ci` (the prepare script); a checkout without it builds it here.
  if (!existsSync(join(repo, 'dist', 'cli', 'main.js'))) {
    await promisify(execFile)('npm', ['run', 'build', '--silent'], {
      cwd: repo,
      maxBuffer: 16 * 1024 * 1024,
    });
  }
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

describe(`alexandria from bin/alexandria.js under Node ${process.versions.node}`, () => {
  it('ingests a dump and a PDF, serves, searches, reads, asks over HTTP and MCP, stops on SIGTERM', async () => {
    await cliJourney(
      (args, env) =>
        spawn(process.execPath, [bin, ...args], {
          cwd: root,
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      root,
      children,
    );
  }, 180_000);
});
