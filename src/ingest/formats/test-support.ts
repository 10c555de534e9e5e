import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures as testFixtures } from '../../../test/helpers/requirements.js';
import { decompressed, fileInput as pipelineInput } from '../ingest-inputs.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';

/**
 * The large shared real samples (`ALEXANDRIA_TEST_DATA`, else `../shared/data`): check with
 * `needsSharedData` (test/helpers/requirements.ts) before reading them.
 */
export { sharedData } from '../../../test/helpers/requirements.js';

/** Real samples that travel with the code (test/fixtures; licences in test/fixtures/LICENSES.md). */
export { testFixtures };

/** Fixtures written for formats without real samples in shared data. */
export const fixtures = join(import.meta.dirname, '__fixtures__');

/**
 * A file as a byte stream, gunzipped when it is gzip, read by the pipeline's own code (so a missing
 * or broken file fails at once, as it does for `alexandria ingest`).
 */
export function fileInput(path: string): AsyncIterable<Uint8Array> {
  return decompressed(pipelineInput(path, 0)).chunks;
}

/** Every item a reader yields for an input. */
export async function readAll(
  reader: FormatReader,
  input: AsyncIterable<string | Uint8Array>,
): Promise<IngestItem[]> {
  const items: IngestItem[] = [];
  for await (const item of reader(input)) items.push(item);
  return items;
}

/** The papers of a list of items (throws with the first rejection when `strict`). */
export function papersOf(items: IngestItem[], strict = true) {
  return items.flatMap((item) => {
    if (item.ok) return [item.paper];
    if (strict) throw new Error(`${item.location}: ${item.reason}`);
    return [];
  });
}

/** The first characters of a file (decompressed), as the pipeline passes them to `detectFormat`. */
export async function headOf(path: string, length = 64 * 1024): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of fileInput(path)) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= length) break;
  }
  return text.slice(0, length);
}

/** Bodies of the recorded 200 responses of an upstream API whose request uri matches. */
export function recordedBodies(api: string, uri: RegExp): string[] {
  const path = join(testFixtures, 'upstream', api, 'interactions.jsonl');
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as { uri: string; status: number; body: string | null })
    .filter((interaction) => interaction.status === 200 && interaction.body && uri.test(interaction.uri))
    .map((interaction) => interaction.body as string);
}
