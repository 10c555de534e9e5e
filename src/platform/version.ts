import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package version (from package.json beside src/ or dist/). */
export function packageVersion(): string {
  if (cached === undefined) {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    cached = (JSON.parse(text) as { version: string }).version;
  }
  return cached;
}
