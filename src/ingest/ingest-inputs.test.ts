import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileInput as testFileInput } from './formats/test-support.js';
import { decompressed, fileInput } from './ingest-inputs.js';

/** Reads an input to its end; the error it fails with, or undefined. */
async function drain(chunks: AsyncIterable<Uint8Array>): Promise<NodeJS.ErrnoException | undefined> {
  try {
    for await (const _chunk of chunks) {
      // read on
    }
    return undefined;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-inputs-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

// A missing gzip input once left a gunzip stream waiting for ever (the test helper piped a file
// stream into gunzip, and pipe() does not pass a read error on): five suites hung 60 s each in a
// clone without the shared data. Each case here has 5 s where it needs milliseconds.
describe('a missing or broken gzip input fails fast', () => {
  it('the pipeline: a missing .gz file fails with ENOENT', async () => {
    const input = fileInput(join(folder, 'missing.jsonl.gz'), 0);
    expect((await drain(decompressed(input).chunks))?.code).toBe('ENOENT');
  }, 5_000);

  it('the pipeline: a truncated .gz file fails with zlib’s error', async () => {
    const path = join(folder, 'truncated.jsonl.gz');
    await writeFile(path, gzipSync('{"title":"A"}\n'.repeat(1000)).subarray(0, 40));
    const error = await drain(decompressed(fileInput(path, 40)).chunks);
    expect(error?.message).toMatch(/unexpected end of file/);
  }, 5_000);

  it('the test helper: a missing .gz file fails with ENOENT, as the pipeline does', async () => {
    expect((await drain(testFileInput(join(folder, 'missing.jsonl.gz'))))?.code).toBe('ENOENT');
    expect((await drain(testFileInput(join(folder, 'missing.jsonl'))))?.code).toBe('ENOENT');
  }, 5_000);
});
