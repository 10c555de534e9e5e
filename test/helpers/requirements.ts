import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { isAbsolute, join, resolve } from 'node:path';
import { skipMarker } from '../reporters/skip-marker.js';
import { llamaServerInstalled, llamaServerPython } from './llama-server.js';
import { testPostgresUrl, testRedisUrl } from './services.js';

/**
 * What a test file needs beyond `npm ci`: the large shared data, PostgreSQL, Redis, poppler,
 * chromium, tesseract. Each `needsX()` returns `true` when the thing is missing, so a file writes
 * `describe.skipIf(needsX())(…)` (`describe.skipIf(await needsPostgres())(…)` for the servers); the
 * missing things are named in ONE line per file at the end of the run by
 * test/reporters/skipped-reporter.ts ("skipped all 12 tests of …: PostgreSQL not reachable at
 * 127.0.0.1:5432/test (…) — start it, or set TEST_DATABASE_URL (README, Running the tests)").
 * With `ALEXANDRIA_TEST_REQUIRE_ALL=1` (set by .ci/run) a missing requirement throws instead, so
 * the file fails: CI never passes by skipping.
 */

/** The repository's root folder. */
export const repositoryRoot = resolve(import.meta.dirname, '..', '..');

/** Small test data that travels with the code (licence per file in test/fixtures/LICENSES.md). */
export const fixtures = join(repositoryRoot, 'test', 'fixtures');

/**
 * The large real test data (PDFs, corpora, eval sets): `ALEXANDRIA_TEST_DATA`, else `../shared/data`
 * beside the repository. Only our own machines have it; suites that need it skip elsewhere.
 */
export const sharedData = sharedDataFolder(process.env.ALEXANDRIA_TEST_DATA);

/** `ALEXANDRIA_TEST_DATA` resolved against the repository root, else `../shared/data`. */
export function sharedDataFolder(setting: string | undefined): string {
  if (!setting) return join(repositoryRoot, '..', 'shared', 'data');
  return isAbsolute(setting) ? setting : resolve(repositoryRoot, setting);
}

/** True when `ALEXANDRIA_TEST_REQUIRE_ALL=1`: every requirement must be met (CI). */
export function requireAll(): boolean {
  return process.env.ALEXANDRIA_TEST_REQUIRE_ALL === '1';
}

const announced = new Set<string>();

/**
 * Records that this file skips tests because `what` is missing (`why` says how and what to do:
 * "not reachable at … — start it (README, Running the tests)"), and returns `true`; throws instead
 * under `ALEXANDRIA_TEST_REQUIRE_ALL=1`, unless the thing is `optional` (opt-in: CI does not install it).
 */
export function skipBecause(what: string, why: string, options: { optional?: boolean } = {}): true {
  if (requireAll() && !options.optional) throw new Error(`ALEXANDRIA_TEST_REQUIRE_ALL=1 and ${what} ${why}`);
  const line = JSON.stringify({ what, why });
  if (!announced.has(line)) {
    announced.add(line);
    // The reporter turns this into one line with the file name and the count of skipped tests.
    // biome-ignore lint/suspicious/noConsole: the channel vitest hands to reporters
    console.info(`${skipMarker}${line}`);
  }
  return true;
}

/**
 * True (skip) when any of `paths` (relative to the shared data folder, e.g. `pdfs/x.pdf`,
 * `eval/scifact`) is missing.
 */
export function needsSharedData(...paths: string[]): boolean {
  const missing = paths.filter((path) => !existsSync(join(sharedData, path)));
  if (missing.length === 0) return false;
  return skipBecause(
    missing.join(', '),
    `not in the shared test data at ${sharedData} — set ALEXANDRIA_TEST_DATA to the folder that holds it (README, Running the tests)`,
  );
}

let postgres: Promise<boolean> | undefined;

/** True (skip) when the test PostgreSQL (`TEST_DATABASE_URL`, default 127.0.0.1:5432/test) does not answer. */
export function needsPostgres(): Promise<boolean> {
  postgres ??= (async () => {
    // Imported here, so files that only want the paths above do not load the driver.
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 3000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      return false;
    } catch (error) {
      const url = new URL(testPostgresUrl);
      return skipBecause(
        'PostgreSQL',
        `not reachable at ${url.host}${url.pathname} (${(error as Error).message}) — start it, or set TEST_DATABASE_URL (README, Running the tests)`,
      );
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgres;
}

let extension: Promise<boolean> | undefined;

/**
 * True (skip) when the test PostgreSQL does not answer, or lacks the `alexandria_pg` extension
 * that the PostgreSQL paper index needs (`alexandria db install-extension` installs it).
 */
export function needsPostgresExtension(): Promise<boolean> {
  extension ??= (async () => {
    if (await needsPostgres()) return true;
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: testPostgresUrl, connectionTimeoutMillis: 3000 });
    client.on('error', () => {});
    try {
      await client.connect();
      const found = await client.query("select 1 from pg_available_extensions where name = 'alexandria_pg'");
      if (found.rowCount) return false;
    } finally {
      await client.end().catch(() => {});
    }
    return skipBecause(
      "PostgreSQL's alexandria_pg extension",
      'not installed — run `node bin/alexandria.js db install-extension` (README, Scaling out)',
    );
  })();
  return extension;
}

let redis: Promise<boolean> | undefined;

/** True (skip) when the test Redis (`TEST_REDIS_URL`, default 127.0.0.1:6379) does not answer PING. */
export function needsRedis(): Promise<boolean> {
  redis ??= (async () => {
    const url = new URL(testRedisUrl);
    const answered = await new Promise<boolean>((done) => {
      const socket = connect({ host: url.hostname, port: Number(url.port || 6379) });
      const finish = (result: boolean) => {
        socket.destroy();
        done(result);
      };
      socket.setTimeout(3000, () => finish(false));
      socket.on('error', () => finish(false));
      socket.on('connect', () => socket.write('PING\r\n'));
      // An answer of any kind (+PONG, or -NOAUTH from a server with a password) means it is up.
      socket.on('data', (data) => finish(/^[+-]/.test(data.toString('latin1'))));
    });
    if (answered) return false;
    return skipBecause(
      'Redis',
      `not reachable at ${url.host} — start it (redis-server), or set TEST_REDIS_URL (README, Running the tests)`,
    );
  })();
  return redis;
}

/**
 * True (skip) when no streaming standby of the test PostgreSQL can be made here: that needs the
 * server's own programs (`pg_config --bindir`, `pg_basebackup`) and root, to run them as `postgres`.
 */
export async function needsPostgresStandby(): Promise<boolean> {
  if (await needsPostgres()) return true;
  const bindir = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8', timeout: 10_000 });
  const programs = bindir.status === 0 && existsSync(join(bindir.stdout.trim(), 'pg_basebackup'));
  if (programs && process.getuid?.() === 0 && runs('runuser', ['--version'])) return false;
  return skipBecause(
    'a PostgreSQL standby',
    'cannot be made here (needs pg_config, pg_basebackup and root, on the PostgreSQL machine) — run as root there, as .ci/run does',
  );
}

/** True when `command` runs (`command -v` without a shell). */
function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.error === undefined;
}

/** True (skip) when poppler-utils (`pdftotext`, `pdfinfo`) are not installed. */
export function needsPoppler(): boolean {
  if (runs('pdftotext', ['-v']) && runs('pdfinfo', ['-v'])) return false;
  return skipBecause('poppler-utils (pdftotext, pdfinfo)', 'not installed — apt-get install poppler-utils');
}

/** Debian's chromium, which the browser tests drive (`apt-get install chromium`). */
export const chromiumPath = '/usr/bin/chromium';

/** True (skip) when chromium is not at /usr/bin/chromium. */
export function needsChromium(): boolean {
  if (existsSync(chromiumPath)) return false;
  return skipBecause('chromium', `not at ${chromiumPath} — apt-get install chromium`);
}

/** True (skip) when the OCR engine `tesseract` is not installed. */
export function needsTesseract(): boolean {
  if (runs('tesseract', ['--version'])) return false;
  return skipBecause('tesseract', 'not installed — apt-get install tesseract-ocr tesseract-ocr-eng');
}

/**
 * The folder schemathesis (pinned by scripts/setup-schemathesis.mjs) is installed in, for
 * `PYTHONPATH=<folder> python3 -m schemathesis.cli`; undefined when it is not installed.
 */
export function schemathesisFolder(): string | undefined {
  const result = spawnSync(
    process.execPath,
    [join(repositoryRoot, 'scripts', 'setup-schemathesis.mjs'), '--installed'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** True (skip) when schemathesis is not installed where scripts/setup-schemathesis.mjs puts it. */
export function needsSchemathesis(): boolean {
  if (schemathesisFolder() !== undefined) return false;
  return skipBecause('schemathesis', 'not installed — run `node scripts/setup-schemathesis.mjs` (pip, PyPI)');
}

/**
 * True (skip) when llama-cpp-python's OpenAI-compatible server is not installed in its venv
 * (test/helpers/llama-server.ts). Opt-in: it compiles llama.cpp for minutes, so CI does not install
 * it and even `ALEXANDRIA_TEST_REQUIRE_ALL=1` only skips (decision 0060).
 */
export function needsLlamaServer(): boolean {
  if (llamaServerInstalled()) return false;
  return skipBecause(
    "llama-cpp-python's server",
    `not installed at ${llamaServerPython()} — python3 -m venv ~/.cache/alexandria/llama-server-venv && ~/.cache/alexandria/llama-server-venv/bin/pip install 'llama-cpp-python[server]==0.3.16' (opt-in; docs/decisions/0060-openai-compatible-server.md)`,
    { optional: true },
  );
}
