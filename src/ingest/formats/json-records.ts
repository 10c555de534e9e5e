import type { Paper } from '../../domain/paper.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { decodeText, readLines } from './lines.js';

/** One JSON value of an input, or the reason it could not be parsed, with where it starts. */
export type JsonRecord =
  | { ok: true; value: unknown; location: string }
  | { ok: false; reason: string; location: string };

/** What a record mapper returns: a paper, a rejection reason, or several of those (API pages). */
export type Mapped = Paper | string | (Paper | string)[];

/**
 * Reads JSON records from a stream, in whichever layout the file has:
 * - JSON Lines (one value per line; the fast path: one `JSON.parse` per line);
 * - a top-level array, whose elements are streamed one by one (a 5 GB CSL-JSON array stays bounded);
 * - one or more pretty-printed values one after the other (a single Crossref/OpenAlex work file).
 * The layout is chosen from the first line: an array opener, a complete value, or neither.
 */
export async function* readJsonRecords(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<JsonRecord> {
  const iterator = readLines(input)[Symbol.asyncIterator]();
  const buffered: { text: string; line: number }[] = [];
  let first: { text: string; line: number } | undefined;
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    buffered.push(next.value);
    if (next.value.text.trim().length > 0) {
      first = next.value;
      break;
    }
  }
  if (!first) return;
  const rest = (async function* () {
    for (const line of buffered) yield line;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  })();
  const opener = first.text.trimStart();
  // A first line that is a whole object (even a malformed one) means JSON Lines.
  const wholeObject = opener.length > 1 && opener.startsWith('{') && opener.trimEnd().endsWith('}');
  if (!opener.startsWith('[') && (wholeObject || parses(opener))) {
    yield* jsonLines(rest);
  } else {
    yield* scanValues(rest, opener.startsWith('['));
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

async function* jsonLines(lines: AsyncIterable<{ text: string; line: number }>): AsyncGenerator<JsonRecord> {
  for await (const { text, line } of lines) {
    if (text.length === 0 || text.trim().length === 0) continue;
    try {
      yield { ok: true, value: JSON.parse(text), location: `line ${line}` };
    } catch (error) {
      yield { ok: false, reason: `invalid JSON: ${(error as Error).message}`, location: `line ${line}` };
    }
  }
}

/**
 * Splits a stream of JSON text into top-level values (or, inside a top-level array, its elements) by
 * tracking brackets and strings; each value is then parsed on its own. Only the current value is held.
 */
async function* scanValues(
  lines: AsyncIterable<{ text: string; line: number }>,
  insideArray: boolean,
): AsyncGenerator<JsonRecord> {
  // Records start at depth 1 inside the top-level array, at depth 0 otherwise.
  const base = insideArray ? 1 : 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let inJunk = false;
  let parts: string[] = [];
  let inValue = false;
  let startLine = 0;
  let count = 0;
  for await (const { text, line } of lines) {
    let segmentStart = 0;
    for (let index = 0; index < text.length; index += 1) {
      const char = text.charCodeAt(index);
      if (inString) {
        if (escaped) escaped = false;
        else if (char === 0x5c) escaped = true;
        else if (char === 0x22) inString = false;
        continue;
      }
      if (!inValue) {
        if (char === 0x20 || char === 0x09 || char === 0x0d || char === 0x2c) continue;
        if (insideArray && depth === 0 && char === 0x5b) {
          depth = 1;
          continue;
        }
        if (insideArray && depth === 1 && char === 0x5d) {
          depth = 0;
          continue;
        }
        if (char !== 0x7b && char !== 0x5b) {
          // A scalar array element, or text between records: report it once, skip to the next record.
          if (!inJunk) {
            count += 1;
            const reason = insideArray
              ? 'array element is not a JSON object'
              : 'unexpected text between JSON records';
            yield { ok: false, reason, location: `record ${count} (line ${line})` };
          }
          if (char === 0x22) inString = true;
          inJunk = true;
          continue;
        }
        inJunk = false;
        inValue = true;
        segmentStart = index;
        startLine = line;
      }
      if (char === 0x22) inString = true;
      else if (char === 0x7b || char === 0x5b) depth += 1;
      else if (char === 0x7d || char === 0x5d) {
        depth -= 1;
        if (depth === base) {
          parts.push(text.slice(segmentStart, index + 1));
          count += 1;
          yield parseValue(parts.join('\n'), count, startLine);
          parts = [];
          inValue = false;
        }
      }
    }
    if (inValue) parts.push(text.slice(segmentStart));
  }
  if (inValue) {
    count += 1;
    yield {
      ok: false,
      reason: 'unterminated JSON value at end of input',
      location: `record ${count} (line ${startLine})`,
    };
  }
}

function parseValue(text: string, count: number, line: number): JsonRecord {
  const location = `record ${count} (line ${line})`;
  try {
    return { ok: true, value: JSON.parse(text), location };
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${(error as Error).message}`, location };
  }
}

/** True for a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A `FormatReader` for a JSON-based format: each record goes through `map`, which returns a paper, a
 * rejection reason or a list of those (an API page of works); a mapper that throws rejects the record.
 */
export function jsonFormatReader(map: (value: unknown) => Mapped): FormatReader {
  return async function* read(input): AsyncGenerator<IngestItem> {
    for await (const record of readJsonRecords(input)) {
      if (!record.ok) {
        yield record;
        continue;
      }
      let mapped: Mapped;
      try {
        mapped = map(record.value);
      } catch (error) {
        yield {
          ok: false,
          reason: `unreadable record: ${(error as Error).message}`,
          location: record.location,
        };
        continue;
      }
      if (!Array.isArray(mapped)) {
        yield toItem(mapped, record.location);
        continue;
      }
      for (const [index, item] of mapped.entries()) {
        yield toItem(item, mapped.length > 1 ? `${record.location} item ${index + 1}` : record.location);
      }
    }
  };
}

function toItem(mapped: Paper | string, location: string): IngestItem {
  return typeof mapped === 'string'
    ? { ok: false, reason: mapped, location }
    : { ok: true, paper: mapped, location };
}

/** Re-exported so readers can decode text without importing two modules. */
export { decodeText };
