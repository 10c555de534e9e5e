import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';

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
