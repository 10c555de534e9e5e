import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completeJsonLinesStore, readJsonLines } from '../../eval/lib/jsonl.js';

interface Row {
  id: string;
  value: number;
}

const keys = { wantedKey: (entry: { id: string }) => entry.id, rowKey: (row: Row) => row.id };

describe('completeJsonLinesStore (the prompt evals’ cache of model answers)', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });

  it('creates the folder, computes every wanted row in order with its index, and appends each', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'alexandria-jsonl-store-'));
    folders.push(folder);
    const path = join(folder, 'nested', 'store.jsonl');
    const calls: Array<[string, number]> = [];
    const rows = await completeJsonLinesStore(
      path,
      [{ id: 'a' }, { id: 'b' }],
      keys,
      async (entry, index) => {
        calls.push([entry.id, index]);
        return { id: entry.id, value: index * 10 };
      },
    );
    expect(calls).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
    expect([...rows.values()]).toEqual([
      { id: 'a', value: 0 },
      { id: 'b', value: 10 },
    ]);
    expect(await readJsonLines<Row>(path)).toEqual([...rows.values()]);
  });

  it('asks only what is missing, keeps stored rows (the last line of a key wins) and appends the new ones', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'alexandria-jsonl-store-'));
    folders.push(folder);
    const path = join(folder, 'store.jsonl');
    const before = `${JSON.stringify({ id: 'b', value: 1 })}\n${JSON.stringify({ id: 'b', value: 2 })}\n`;
    await writeFile(path, before);
    const calls: Array<[string, number]> = [];
    const rows = await completeJsonLinesStore(
      path,
      [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
      keys,
      async (entry, index) => {
        calls.push([entry.id, index]);
        return { id: entry.id, value: 100 + index };
      },
    );
    expect(calls).toEqual([
      ['a', 0],
      ['c', 2],
    ]);
    expect(rows.get('b')).toEqual({ id: 'b', value: 2 });
    expect(await readFile(path, 'utf8')).toBe(
      `${before}${JSON.stringify({ id: 'a', value: 100 })}\n${JSON.stringify({ id: 'c', value: 102 })}\n`,
    );
  });

  it('keeps the rows computed before a failure', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'alexandria-jsonl-store-'));
    folders.push(folder);
    const path = join(folder, 'store.jsonl');
    await expect(
      completeJsonLinesStore(path, [{ id: 'a' }, { id: 'b' }], keys, async (entry) => {
        if (entry.id === 'b') throw new Error('model failed');
        return { id: entry.id, value: 1 };
      }),
    ).rejects.toThrow('model failed');
    expect(await readJsonLines<Row>(path)).toEqual([{ id: 'a', value: 1 }]);
  });
});
