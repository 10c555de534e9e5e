#!/usr/bin/env node
// Builds native/postgres (the `alexandria_pg` extension: BM25 for the PostgreSQL paper index) with
// PGXS in native/build/postgres and installs it into the PostgreSQL of `pg_config` (PG_CONFIG picks
// another). Run only on request — `alexandria db install-extension` or `.ci/run` — never by
// `npm ci`, `npm run build` or `npm start`: a user who never runs PostgreSQL has nothing to compile,
// and nothing is written into the system's PostgreSQL behind anyone's back. Exits non-zero with one
// line saying what to install or which rights are missing; `--build-only` compiles without installing.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const source = join(root, 'native', 'postgres');
const build = join(root, 'native', 'build', 'postgres');
const pgConfig = process.env.PG_CONFIG ?? 'pg_config';
const buildOnly = process.argv.includes('--build-only');

function fail(message) {
  console.error(`install-extension: ${message}`);
  process.exit(1);
}

function config(flag) {
  try {
    return execFileSync(pgConfig, [flag], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const includes = config('--includedir-server');
if (!includes || !existsSync(join(includes, 'postgres.h'))) {
  fail(
    `no ${pgConfig} or PostgreSQL server headers: install them (Debian: apt-get install postgresql-server-dev-15 make gcc) or point PG_CONFIG at the server's pg_config`,
  );
}
mkdirSync(build, { recursive: true });
for (const file of readdirSync(source)) cpSync(join(source, file), join(build, file));
const make = (target) =>
  execFileSync('make', ['-s', '-C', build, `PG_CONFIG=${pgConfig}`, ...(target ? [target] : [])], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
try {
  make();
} catch (error) {
  fail(`could not compile native/postgres (${error instanceof Error ? error.message : error})`);
}
if (buildOnly) {
  console.log(`install-extension: built ${build}`);
  process.exit(0);
}
const libdir = config('--pkglibdir');
const sharedir = config('--sharedir');
try {
  accessSync(libdir, constants.W_OK);
  accessSync(join(sharedir, 'extension'), constants.W_OK);
} catch {
  fail(`built ${build}, but ${libdir} is not writable by this user: run the command again as root`);
}
make('install');
console.log(
  `install-extension: installed alexandria_pg into ${libdir} (the paper index runs CREATE EXTENSION on first use; ALTER EXTENSION alexandria_pg UPDATE upgrades an existing database)`,
);
