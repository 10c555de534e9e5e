import { readFile } from 'node:fs/promises';

/** The objects of a JSON Lines file, one a non-empty line. */
export async function readJsonLines<T>(path: string): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}
