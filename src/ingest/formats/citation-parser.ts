import { citationPlugins } from '../../platform/citation-js.js';
import type { IngestItem } from '../ingest-item.js';
import type { TextEntry } from './text-entries.js';

/**
 * citation-js (the maintained BibTeX/RIS parser) behind two calls: parse raw entries (the plugin's
 * intermediate form, which keeps fields CSL drops: `eprint`, RIS `L1`) and convert them to CSL-JSON.
 * `forceType` everywhere, so nothing is ever guessed or fetched.
 */
type ChainingInput = ReturnType<typeof citationPlugins>['input'] & {
  chainLink(data: unknown, options: { forceType: string }): unknown;
};
const input = (): ChainingInput => citationPlugins().input as ChainingInput;

/** Raw entries of a text in one of citation-js's text types (`@biblatex/text`, `@ris/file`). */
export function parseRawEntries(text: string, type: '@biblatex/text' | '@ris/file'): unknown[] {
  const parsed =
    type === '@ris/file'
      ? input().chainLink(text, { forceType: type })
      : input().chain(text, { forceType: type, target: '@biblatex/entries+list' });
  return Array.isArray(parsed) ? parsed : [];
}

/** The CSL-JSON item of one raw entry (`@biblatex/entries+list` takes a one-entry list). */
export function rawEntryToCsl(entry: unknown, type: '@biblatex/entries+list' | '@ris/record'): unknown {
  const csl = input().chain(type === '@ris/record' ? entry : [entry], {
    forceType: type,
    generateGraph: false,
  });
  return Array.isArray(csl) ? csl[0] : undefined;
}

/**
 * Parses a batch of entries in one call; when that throws or the counts disagree (a bad entry
 * somewhere), each entry is parsed alone so only the bad one is rejected, with its line.
 */
export function parseBatch<Raw>(
  batch: TextEntry[],
  parse: (text: string) => Raw[],
  map: (raw: Raw, entry: TextEntry) => IngestItem,
): IngestItem[] {
  if (batch.some((entry) => entry.refused !== undefined)) {
    // Refused entries (too long to read) are rejected as they are; only the others are parsed.
    const parsed = parseBatch(
      batch.filter((entry) => entry.refused === undefined),
      parse,
      map,
    );
    return batch.map((entry) =>
      entry.refused === undefined
        ? (parsed.shift() as IngestItem)
        : { ok: false, reason: entry.refused, location: `line ${entry.line}` },
    );
  }
  if (batch.length === 0) return [];
  try {
    const raws = parse(batch.map((entry) => entry.text).join('\n\n'));
    if (raws.length === batch.length) return raws.map((raw, index) => map(raw, batch[index] as TextEntry));
  } catch {
    // Fall through: find the entry that breaks the batch.
  }
  return batch.map((entry) => {
    try {
      const [raw, ...rest] = parse(entry.text);
      if (raw === undefined || rest.length > 0) {
        return { ok: false, reason: 'entry could not be parsed', location: `line ${entry.line}` };
      }
      return map(raw, entry);
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? 'parse error';
      return { ok: false, reason: `entry could not be parsed: ${message}`, location: `line ${entry.line}` };
    }
  });
}
