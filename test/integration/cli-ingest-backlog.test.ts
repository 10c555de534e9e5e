import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxLoaderUrl } from '../../src/platform/worker-file.js';
import { fixtures } from '../helpers/requirements.js';

const run = promisify(execFile);
const entry = join(import.meta.dirname, '..', 'helpers', 'cli-entry.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'alexandria-ingest-backlog-'));
const records = join(fixtures, 'corpus', 'acl_anthology_records.jsonl');

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function ingest(...args: string[]) {
  return run(process.execPath, ['--import', tsxLoaderUrl(), entry, 'ingest', '--no-progress', ...args], {
    env: {
      ...process.env,
      ALEXANDRIA_DATA_DIR: dataDir,
      ALEXANDRIA_LOG_LEVEL: 'warn',
      ALEXANDRIA_RECORD_VECTORS: 'true',
    },
    cwd: dataDir,
  });
}

// Issue 38, item 2: the ingest summary says how many records wait for vectors and what computes them.
describe('the ingest summary shows the record-vector backlog', () => {
  it('counts the records waiting for a vector, and says no process is computing them', async () => {
    const { stdout } = await ingest(records);
    expect(stdout).toMatch(/Read 173 records .*173 inserted/);
    expect(stdout).toContain(
      'Vectors: 173 records waiting, 0 embedded (onnx:all-MiniLM-L6-v2); drain rate not measured',
    );
    expect(stdout).toContain('A running `alexandria serve` (or `alexandria worker`) computes them');
  }, 120_000);

  it('measures the drain with --sample: nothing serves this folder, so nothing drains', async () => {
    // A second file with new records: the summary speaks of the whole index's backlog.
    const { stdout } = await ingest(
      '--sample',
      '1',
      join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'),
    );
    expect(stdout).toMatch(
      /Vectors: 672 records waiting, 0 embedded \(onnx:all-MiniLM-L6-v2\); not draining \(nothing stored in 1 s/,
    );
    const json = JSON.parse((await ingest('--json', records)).stdout) as {
      unchanged: number;
      backlog?: unknown;
    };
    // Nothing new: the summary reads no backlog.
    expect(json.unchanged).toBe(173);
    expect(json.backlog).toBeUndefined();
  }, 120_000);
});
