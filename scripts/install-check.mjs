#!/usr/bin/env node
// Installs this repository as a user would: packs it (`npm pack`) and installs the tarball with
// `npm install -g` into a fresh prefix, under Node <major>, with no environment variables of ours.
// test/integration/installed-cli.test.ts then runs the installed `alexandria` (serve, search, read,
// ask). Installing needs the npm registry, which tests may not use, so `.ci/run` calls this before
// the tests; a developer runs it by hand.
//
//   node scripts/install-check.mjs 20|22|24
//
// Node <major> is the Node running this script when its major matches, else the pinned release
// from scripts/node-runtime.mjs. better-sqlite3 is then compiled from source (its prebuilt binaries
// are not on the npm registry) against that Node's headers: npm is given `--nodedir` pointing at
// the runtime package, which carries them, as README "Install from the tarball" tells a user of
// such a Node to do. Where: ${XDG_CACHE_HOME:-~/.cache}/alexandria/install-check/<major>/
// (prefix/, the tarball, npm's output, and install-check.json: which Node, which bin).
// docs/decisions/0044-install-anywhere.md
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const repo = join(import.meta.dirname, '..');
const major = process.argv[2];
if (!/^\d+$/.test(major ?? '')) {
  console.error('usage: node scripts/install-check.mjs <major>');
  process.exit(2);
}
const fromRuntime = process.versions.node.split('.')[0] !== major;
const node = fromRuntime
  ? execFileSync(process.execPath, [join(repo, 'scripts', 'node-runtime.mjs'), major], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim()
  : process.execPath;
const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const folder = join(
  process.env.XDG_CACHE_HOME || join(homedir(), '.cache'),
  'alexandria',
  'install-check',
  major,
);
const prefix = join(folder, 'prefix');
const record = join(folder, 'install-check.json');

if (!existsSync(join(repo, 'dist', 'cli', 'main.js'))) {
  console.error('install-check: dist/ is not built; run npm run build (npm ci does) first');
  process.exit(1);
}
rmSync(folder, { recursive: true, force: true });
mkdirSync(folder, { recursive: true });
// --ignore-scripts: dist/ and web/dist/ are built already (npm ci's prepare), so packing does not
// rebuild them; the test compares the installed dist/ with the repository's, to never run a stale copy.
const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  }),
);
const tarball = join(folder, packed.filename);

const started = Date.now();
const args = ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund'];
if (fromRuntime) args.push(`--nodedir=${dirname(dirname(node))}`);
args.push(tarball);
console.error(`install-check: Node ${nodeVersion}: npm ${args.join(' ')}`);
// npm's own shebang finds `node` on PATH: the Node under test runs npm and every install script.
const installed = spawnSync('npm', args, {
  cwd: folder,
  env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const seconds = Math.round((Date.now() - started) / 1000);
writeFileSync(join(folder, 'npm-install.log'), `${installed.stdout}\n${installed.stderr}`);
if (installed.status !== 0) {
  console.error(installed.stderr.split('\n').slice(-30).join('\n'));
  console.error(`install-check: npm install -g failed under Node ${nodeVersion} after ${seconds} s`);
  process.exit(1);
}
const added = /added (\d+) packages?/.exec(installed.stdout)?.[0] ?? 'installed';
const packageFolder = join(prefix, 'lib', 'node_modules', 'alexandria');

writeFileSync(
  record,
  `${JSON.stringify(
    {
      node,
      nodeVersion,
      tarball,
      tarballSha256: createHash('sha256').update(readFileSync(tarball)).digest('hex'),
      bin: join(prefix, 'bin', 'alexandria'),
      packageFolder,
      seconds,
    },
    null,
    2,
  )}\n`,
);
console.log(
  `install-check: Node ${nodeVersion}: npm install -g ${packed.filename}: ${added} in ${seconds} s; ${join(prefix, 'bin', 'alexandria')}`,
);
