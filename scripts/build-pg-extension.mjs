#!/usr/bin/env node
// Builds native/postgres (the `alexandria_pg` extension: BM25 for the PostgreSQL paper index) with
// PGXS in native/build/postgres and installs it into the local PostgreSQL when this user may write
// there (root on a CI or database machine). Run by `npm run build`. Without pg_config or the server
// headers (Debian: postgresql-server-dev-15) it says so and exits 0: only the PostgreSQL index needs
// it, and it tells the operator at start-up when the database lacks it (README, "Scaling out").
import { execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const source = join(root, 'native', 'postgres');
const build = join(root, 'native', 'build', 'postgres');
const pgConfig = process.env.PG_CONFIG ?? 'pg_config';

function config(flag) {
  try {
    return execFileSync(pgConfig, [flag], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const includes = config('--includedir-server');
if (!includes || !existsSync(join(includes, 'postgres.h'))) {
  console.warn(
    'build-pg-extension: no pg_config or PostgreSQL server headers (postgresql-server-dev-15); the PostgreSQL paper index needs alexandria_pg installed on its database server',
  );
  process.exit(0);
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
  console.warn(`build-pg-extension: could not compile (${error instanceof Error ? error.message : error})`);
  process.exit(0);
}
const libdir = config('--pkglibdir');
const sharedir = config('--sharedir');
let writable = false;
try {
  if (libdir && sharedir) {
    accessSync(libdir, constants.W_OK);
    accessSync(join(sharedir, 'extension'), constants.W_OK);
    writable = true;
  }
} catch {}
if (writable) {
  make('install');
  console.log(`build-pg-extension: installed alexandria_pg into ${libdir}`);
} else {
  console.log(
    `build-pg-extension: built ${build}; install it as root with \`make -C ${build} install\` (then CREATE EXTENSION happens on first use)`,
  );
}
