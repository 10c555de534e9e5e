#!/usr/bin/env node
// Compiles native/bm25-known-df.c into a SQLite loadable extension (native/build/), against the
// SQLite headers better-sqlite3 ships. Run by `npm run build` (thus by `npm ci` and `npm start`).
// Without a C compiler it says so and exits 0: the index then ranks with FTS5's bm25(), slower on
// large indexes (docs/decisions/0013-search-index-and-ranking.md).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const source = join(root, 'native', 'bm25-known-df.c');
const output = join(
  root,
  'native',
  'build',
  process.platform === 'darwin' ? 'bm25-known-df.dylib' : 'bm25-known-df.so',
);
const headers = join(
  dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'deps',
  'sqlite3',
);

if (existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs) process.exit(0);
if (!existsSync(join(headers, 'sqlite3ext.h'))) {
  console.warn(`build-sqlite-extension: no sqlite3ext.h under ${headers}; searches will use FTS5's bm25()`);
  process.exit(0);
}
mkdirSync(dirname(output), { recursive: true });
const compiler = process.env.CC ?? 'cc';
const partial = `${output}.${process.pid}.tmp`;
try {
  execFileSync(compiler, ['-O2', '-shared', '-fPIC', '-I', headers, source, '-o', partial, '-lm'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  renameSync(partial, output);
  console.log(`build-sqlite-extension: built ${output}`);
} catch (error) {
  console.warn(
    `build-sqlite-extension: could not compile with ${compiler} (${error instanceof Error ? error.message : error}); searches will use FTS5's bm25()`,
  );
}
