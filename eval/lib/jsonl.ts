import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The objects of a JSON Lines file, one a non-empty line. */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

/**
 * A JSON Lines store of rows keyed by `rowKey`, completed for `wanted`: the rows already in `path`
 * (created with its folder when missing; a later line wins over an earlier one with the same key),
 * then, in the order of `wanted`, each entry whose key (`wantedKey`) has no row yet, computed by
 * `compute` (with the entry's index in `wanted`) and appended to the file at once, so that a run cut
 * short keeps what it computed. Returns every row by key, stored and new.
 */
export async function completeJsonLinesStore<W, R>(
  path: string,
  wanted: readonly W[],
  keys: { wantedKey: (entry: W) => string; rowKey: (row: R) => string },
  compute: (entry: W, index: number) => Promise<R>,
): Promise<Map<string, R>> {
  await mkdir(dirname(path), { recursive: true });
  const stored = existsSync(path) ? await readJsonLines<R>(path) : [];
  const rows = new Map(stored.map((row) => [keys.rowKey(row), row]));
  for (const [index, entry] of wanted.entries()) {
    const key = keys.wantedKey(entry);
    if (rows.has(key)) continue;
    const row = await compute(entry, index);
    rows.set(key, row);
    await appendFile(path, `${JSON.stringify(row)}\n`);
  }
  return rows;
}
