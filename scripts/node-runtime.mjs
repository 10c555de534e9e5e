#!/usr/bin/env node
// Provides a Node.js runtime of another major version than the one running the project, for what
// needs one: the MCP conformance suite needs Node >= 22, the smoke tier runs under Node 22 and 24
// (scripts/smoke.mjs), and scripts/install-check.mjs installs the packed tarball under each. The
// runtime comes from the npm registry as the package node-<platform>-<arch> (the official binary in
// an npm package, with the headers native modules compile against in include/node), installed once
// into a cache folder, never into the project's node_modules:
//
//   node scripts/node-runtime.mjs 22             installs it if missing, prints the binary's path
//   node scripts/node-runtime.mjs 22 --installed prints the path if installed, else exits 3
//
// Where: ${XDG_CACHE_HOME:-~/.cache}/alexandria/node/<major> (the package folder, two levels above
// the binary, is what `--nodedir` names). `.ci/run` calls it before the tests;
// test/integration/mcp-conformance.test.ts asks it with --installed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The exact release installed per major version: pinned, so every machine runs the same binary. */
const pinnedReleases = { 20: '20.20.2', 22: '22.23.5', 24: '24.22.3' };

const [major, flag] = process.argv.slice(2);
const release = pinnedReleases[major];
if (release === undefined) {
  console.error(
    `usage: node scripts/node-runtime.mjs <major> [--installed]; majors: ${Object.keys(pinnedReleases)}`,
  );
  process.exit(2);
}
const packageName = `node-${process.platform}-${process.arch}`;
const cacheRoot = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
const prefix = join(cacheRoot, 'alexandria', 'node', major);
const binary = join(prefix, 'node_modules', packageName, 'bin', 'node');

/** The installed binary's version, or undefined when it is missing or does not run here. */
function installedVersion() {
  if (!existsSync(binary)) return undefined;
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  } catch {
    return undefined;
  }
}

if (installedVersion() !== release) {
  if (flag === '--installed') process.exit(3);
  console.error(`node-runtime: installing ${packageName}@${release} into ${prefix}`);
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `${packageName}@${release}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  } catch {
    console.error(`node-runtime: npm could not install ${packageName}@${release}`);
    process.exit(1);
  }
  if (installedVersion() !== release) {
    console.error(`node-runtime: ${binary} does not run as Node ${release} on this machine`);
    process.exit(1);
  }
}
console.log(binary);
