// Issue "Anyone can clone, test, run and operate it", part 3: `npm install -g` of the packed tarball
// works with plain npm on a machine that reaches only the npm registry, under Node 20, 22 and 24.
// Installing needs the registry, which tests may not use, so scripts/install-check.mjs installs
// (`.ci/run` runs it for Node 20 and 22) and this file runs what it installed: the `alexandria` on
// the prefix's PATH, under the Node that installed it, through the same journey as
// cli-journey.test.ts. A Node without an install, or with an install of another build, is skipped
// with one line (failed under ALEXANDRIA_TEST_REQUIRE_ALL=1 for the majors CI installs).
// docs/decisions/0044-install-anywhere.md
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJourney } from '../helpers/cli-journey.js';

const repo = join(import.meta.dirname, '..', '..');
const checks = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'alexandria', 'install-check');
/** The majors .ci/run installs; 24 runs too when installed by hand. */
const requiredMajors = ['20', '22'];
const children = new Set<ChildProcess>();
const folders: string[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** What scripts/install-check.mjs wrote about one install. */
interface InstallRecord {
  node: string;
  nodeVersion: string;
  bin: string;
  packageFolder: string;
}

/** sha256 over the `.js` files below `dist` (relative path and content of each, sorted). */
function distHash(dist: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(`${relative(dist, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** The current install for `major`, or why there is none to run. */
function installFor(major: string): InstallRecord | string {
  const recordFile = join(checks, major, 'install-check.json');
  const how = `run \`node scripts/install-check.mjs ${major}\``;
  if (!existsSync(recordFile)) return `no npm install -g under Node ${major}: ${how}`;
  const record = JSON.parse(readFileSync(recordFile, 'utf8')) as InstallRecord;
  if (!existsSync(join(repo, 'dist'))) return 'dist/ is not built: run npm run build';
  if (distHash(join(record.packageFolder, 'dist')) !== distHash(join(repo, 'dist'))) {
    return `the npm install -g under Node ${major} holds another build than dist/: ${how} again`;
  }
  return record;
}

/** Prints one line to the test log. */
function log(text: string): void {
  // biome-ignore lint/suspicious/noConsole: a skip belongs in the CI log, in one line.
  console.log(text);
}

const requireAll = process.env.ALEXANDRIA_TEST_REQUIRE_ALL === '1';
for (const major of ['20', '22', '24']) {
  const install = installFor(major);
  const required = requireAll && requiredMajors.includes(major);
  if (typeof install === 'string' && !required) log(`skipped installed-cli under Node ${major}: ${install}`);

  describe.skipIf(typeof install === 'string' && !required)(
    `alexandria installed by npm install -g, Node ${major}`,
    () => {
      it('leaves out the CUDA download: onnxruntime-node holds the stand-ins, not the libraries', () => {
        if (typeof install === 'string') throw new Error(`ALEXANDRIA_TEST_REQUIRE_ALL=1 and ${install}`);
        // Only linux-x64 has the download (onnxruntime-node's script/install-metadata.js).
        if (process.platform !== 'linux' || process.arch !== 'x64') return;
        const onnx = join(
          install.packageFolder,
          'node_modules',
          'onnxruntime-node',
          'bin',
          'napi-v6',
          'linux',
          'x64',
        );
        for (const name of [
          'libonnxruntime_providers_cuda.so',
          'libonnxruntime_providers_shared.so',
          'libonnxruntime_providers_tensorrt.so',
        ]) {
          expect(readFileSync(join(onnx, name), 'utf8')).toMatch(/^Stand-in written by alexandria/);
        }
        expect(existsSync(join(onnx, 'onnxruntime_binding.node'))).toBe(true);
      });

      it('ingests, serves, searches, reads, asks over HTTP and MCP, stops on SIGTERM', async () => {
        if (typeof install === 'string') throw new Error(`ALEXANDRIA_TEST_REQUIRE_ALL=1 and ${install}`);
        const root = await mkdtemp(join(tmpdir(), `alexandria-installed-${major}-`));
        folders.push(root);
        expect(execFileSync(install.node, ['--version'], { encoding: 'utf8' }).trim()).toBe(
          install.nodeVersion,
        );
        expect(install.nodeVersion.startsWith(`v${major}.`)).toBe(true);
        // As a user runs it: the bin on PATH, its `#!/usr/bin/env node` finding the Node that installed it.
        await cliJourney(
          (args, env) =>
            spawn(install.bin, args, {
              cwd: root,
              env: {
                ...process.env,
                ...env,
                PATH: `${dirname(install.node)}${delimiter}${process.env.PATH ?? ''}`,
              },
              stdio: ['ignore', 'pipe', 'pipe'],
            }),
          root,
          children,
        );
      }, 180_000);
    },
  );
}
