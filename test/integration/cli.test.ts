import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';
import { editorialPdf } from '../helpers/generated-pdfs.js';

const run = promisify(execFile);
const entry = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');
let dataDir: string;

/** Runs `alexandria <args>` from the TypeScript sources, in its own process, on a temp data dir. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const result = await run(process.execPath, ['--import', tsxLoaderUrl(), entry, ...args], {
      env: { ...process.env, ALEXANDRIA_DATA_DIR: dataDir, ALEXANDRIA_LOG_LEVEL: 'warn', ...env },
      cwd: dataDir,
    });
    return { code: 0, stdout: result.stdout, stderr: result.stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'alexandria-cli-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('alexandria CLI', () => {
  it('creates, lists and revokes keys without ever listing the key itself', async () => {
    const created = await cli(['keys', 'create', '--tenant', 'lab', '--name', 'ci', '--json']);
    expect(created.code).toBe(0);
    const record = JSON.parse(created.stdout) as { id: string; key: string; tenantId: string };
    expect(record.key).toMatch(/^alx_[A-Za-z0-9]{40}$/);
    expect(record.tenantId).toBe('lab');

    const listed = await cli(['keys', 'list']);
    expect(listed.stdout).toContain(record.id);
    expect(listed.stdout).toContain('active');
    expect(listed.stdout).not.toContain(record.key);

    expect((await cli(['keys', 'revoke', record.id])).code).toBe(0);
    expect((await cli(['keys', 'list', '--tenant', 'lab'])).stdout).toContain('revoked');
    const again = await cli(['keys', 'revoke', record.id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('No active API key');
  });

  it('prints the effective configuration with secrets redacted', async () => {
    const printed = await cli(['config'], {
      ALEXANDRIA_PORT: '9123',
      ALEXANDRIA_API_KEYS: 'lab:supersecretsupersecret',
    });
    expect(printed.code).toBe(0);
    const config = JSON.parse(printed.stdout);
    expect(config.server.port).toBe(9123);
    expect(config.auth.apiKeys).toBe('***');
    expect(printed.stdout).not.toContain('supersecret');
  });

  it('fails fast on bad configuration, naming every bad variable', async () => {
    const failed = await cli(['config'], { ALEXANDRIA_PORT: 'x', ALEXANDRIA_RATE_LIMIT_BURST: '-1' });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('ALEXANDRIA_PORT');
    expect(failed.stderr).toContain('ALEXANDRIA_RATE_LIMIT_BURST');
  });
});

/**
 * A user's mistake ends as exactly one `error:` line, the last on stderr (ingest's progress lines may
 * come before it), with no stack trace and a non-zero exit.
 */
function expectOneLineError(result: { code: number; stderr: string }, pattern: RegExp): void {
  expect(result.code, result.stderr).not.toBe(0);
  const lines = result.stderr.trim().split('\n');
  expect(
    lines.filter((line) => line.startsWith('error: ')),
    result.stderr,
  ).toEqual([lines.at(-1)]);
  expect(lines.at(-1)).toMatch(pattern);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

// Issue 13: these printed raw stack traces, and `ingest paper.pdf` exited 0 with "skipped".
describe('alexandria CLI errors (issue 13)', () => {
  it('ingest of a missing path says so, and what to give instead', async () => {
    const result = await cli(['ingest', 'no-such-dump.jsonl']);
    expect(result.code).toBe(1);
    expectOneLineError(result, /No such file or folder: no-such-dump\.jsonl\. Give a file, a folder, or - /);
  });

  it('ingest with an unknown --format lists the accepted formats', async () => {
    await writeFile(join(dataDir, 'records.jsonl'), '{"title":"A paper"}\n');
    const result = await cli(['ingest', '--format', 'endnote', 'records.jsonl']);
    expect(result.code).toBe(1);
    expectOneLineError(result, /argument 'endnote' is invalid\. Allowed choices are .*openalex.*bibtex/);
  });

  // Issue 16: PDFs are now filed in a project (test/integration/cli-ingest-pdfs.test.ts); a
  // compressed one is still not read, and says what to do.
  it('ingest of a gzip-compressed PDF says to decompress it', async () => {
    const pdf = await editorialPdf();
    await writeFile(join(dataDir, 'paper.pdf.gz'), gzipSync(pdf));
    const result = await cli(['ingest', 'paper.pdf.gz']);
    expect(result.code).toBe(1);
    expectOneLineError(result, /paper\.pdf\.gz: a compressed PDF is not read; decompress it \(gunzip\)/);
  });

  it('ingest of a file in no known format is an error naming the accepted formats', async () => {
    await writeFile(join(dataDir, 'notes.txt'), 'just some notes, not a dump\n');
    const result = await cli(['ingest', 'notes.txt']);
    expect(result.code).toBe(1);
    expectOneLineError(result, /format of notes\.txt was not recognised; accepted formats: openalex, /);
  });

  it('serve --port abc is a usage error, not a crash', async () => {
    const result = await cli(['serve', '--port', 'abc']);
    expect(result.code).toBe(1);
    expectOneLineError(result, /--port .*'abc' is invalid\. Give a whole number from 0 to 65535/);
  });

  it('serve on a port already in use says so and exits', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const result = await cli(['serve', '--port', String(port)], {
        ALEXANDRIA_HOST: '127.0.0.1',
        // A key exists, so serve prints no first-run key banner before failing.
        ALEXANDRIA_API_KEYS: 'lab:supersecretsupersecret',
        ALEXANDRIA_LOG_LEVEL: 'silent',
      });
      expect(result.code).toBe(1);
      expectOneLineError(result, new RegExp(`Port ${port} is already in use on 127\\.0\\.0\\.1: .*--port`));
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
