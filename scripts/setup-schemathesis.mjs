#!/usr/bin/env node
// Installs schemathesis, the property-based OpenAPI tester that test/integration/openapi-schemathesis.test.ts
// runs against a real server's /openapi.json (decision 0052), with pip from PyPI, pinned, into a
// folder of its own (`pip install --target`), never into the system's Python packages:
//
//   node scripts/setup-schemathesis.mjs              installs it if missing, prints the folder
//   node scripts/setup-schemathesis.mjs --installed  prints the folder if installed, else exits 3
//
// Where: ${XDG_CACHE_HOME:-~/.cache}/alexandria/schemathesis/<version>. It runs as
// `PYTHONPATH=<folder> python3 -m schemathesis.cli`. `.ci/run` calls it before the tests.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The release every machine runs: its checks and their verdicts change between releases. */
export const schemathesisVersion = '4.32.5';

const cacheRoot = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
const folder = join(cacheRoot, 'alexandria', 'schemathesis', schemathesisVersion);

/** True when the pinned release imports from the folder. */
function installed() {
  if (!existsSync(join(folder, 'schemathesis'))) return false;
  const probe = spawnSync('python3', ['-c', 'import schemathesis.cli'], {
    env: { ...process.env, PYTHONPATH: folder },
    stdio: 'ignore',
  });
  return probe.status === 0;
}

const [flag] = process.argv.slice(2);
if (installed()) {
  console.log(folder);
  process.exit(0);
}
if (flag === '--installed') process.exit(3);
try {
  execFileSync(
    'python3',
    [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '--no-warn-script-location',
      '--upgrade',
      '--target',
      folder,
      `schemathesis==${schemathesisVersion}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
} catch (error) {
  console.error(
    `setup-schemathesis: pip could not install schemathesis ${schemathesisVersion}: ${error.message}`,
  );
  process.exit(1);
}
if (!installed()) {
  console.error(`setup-schemathesis: schemathesis ${schemathesisVersion} does not import from ${folder}`);
  process.exit(1);
}
console.log(folder);
