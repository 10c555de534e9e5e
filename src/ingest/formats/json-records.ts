import type { Paper } from '../../domain/paper.js';
import type { FormatReader, IngestItem } from '../ingest-item.js';
import { inputLimits, tooLong } from '../limits/input-limits.js';
import { LineSplitter, type NumberedLine } from './lines.js';

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
 * The layout is chosen from the first non-empty line: an array opener, a whole value, or neither.
 * Each chunk is split and parsed synchronously: the only async step is one per record yielded.
 * Memory stays bounded by one record: a JSON line longer than `inputLimits.jsonLineChars` (a value
 * or line of the other layouts longer than `jsonValueChars`) is skipped unread and rejected.
 */
export async function* readJsonRecords(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<JsonRecord> {
  const splitter = new LineSplitter({ maxLineChars: inputLimits.jsonValueChars });
  const decoder = new TextDecoder('utf-8');
  const lines: NumberedLine[] = [];
  const records: JsonRecord[] = [];
  let layout: Layout | undefined;
  for await (const chunk of input) {
    splitter.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }), lines);
    layout = readLinesInto(lines, layout, records);
    // Once the file is known to be JSON Lines, one line is one record: hold no more than one.
    if (layout === 'lines') splitter.maxLineChars = inputLimits.jsonLineChars;
    for (const record of records) yield record;
    records.length = 0;
  }
  splitter.push(decoder.decode(), lines);
  splitter.end(lines);
  layout = readLinesInto(lines, layout, records);
  if (layout instanceof JsonValueScanner) layout.end(records);
  for (const record of records) yield record;
}

/** JSON Lines, or a scanner for arrays and pretty-printed values. */
type Layout = 'lines' | JsonValueScanner;

/** Turns the lines into records (deciding the layout on the first non-empty line); empties `lines`. */
function readLinesInto(
  lines: NumberedLine[],
  current: Layout | undefined,
  out: JsonRecord[],
): Layout | undefined {
  let layout = current;
  for (const { text, line, overLength } of lines) {
    if (overLength !== undefined) {
      out.push(overLongLine(line, overLength, layout === 'lines' ? inputLimits.jsonLineChars : undefined));
      if (layout instanceof JsonValueScanner) layout.abandon();
      continue;
    }
    if (layout === undefined) {
      const opener = text.trim();
      if (opener.length === 0) continue;
      // A first line that is a whole object (even a malformed one) means JSON Lines.
      const wholeObject = opener.length > 1 && opener.startsWith('{') && opener.endsWith('}');
      layout =
        !opener.startsWith('[') && (wholeObject || parses(opener))
          ? 'lines'
          : new JsonValueScanner(opener.startsWith('['));
    }
    if (layout === 'lines') {
      if (text.length === 0 || text.trim().length === 0) continue;
      if (text.length > inputLimits.jsonLineChars) {
        // Only the lines that arrived with the first one can get here (held under the wider cap).
        out.push(overLongLine(line, text.length, inputLimits.jsonLineChars));
        continue;
      }
      try {
        out.push({ ok: true, value: JSON.parse(text), location: `line ${line}` });
      } catch (error) {
        out.push({
          ok: false,
          reason: `invalid JSON: ${(error as Error).message}`,
          location: `line ${line}`,
        });
      }
    } else {
      layout.push(text, line, out);
    }
  }
  lines.length = 0;
  return layout;
}

function overLongLine(line: number, length: number, limit = inputLimits.jsonValueChars): JsonRecord {
  return {
    ok: false,
    reason: `${tooLong('line', length, limit)}; skipped without reading it`,
    location: `line ${line}`,
  };
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Splits JSON text, line by line, into top-level values (or, inside a top-level array, its elements)
 * by tracking brackets and strings; each value is then parsed on its own. Only the current value is held.
 */
class JsonValueScanner {
  // Records start at depth 1 inside the top-level array, at depth 0 otherwise.
  private readonly base: number;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private inJunk = false;
  private inValue = false;
  private parts: string[] = [];
  /** Characters of the current value seen so far; past `jsonValueChars` its text is dropped. */
  private valueChars = 0;
  private startLine = 0;
  private count = 0;

  constructor(private readonly insideArray: boolean) {
    this.base = insideArray ? 1 : 0;
  }

  push(text: string, line: number, out: JsonRecord[]): void {
    let segmentStart = 0;
    for (let index = 0; index < text.length; index += 1) {
      const char = text.charCodeAt(index);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === 0x5c) this.escaped = true;
        else if (char === 0x22) this.inString = false;
        continue;
      }
      if (!this.inValue) {
        if (char === 0x20 || char === 0x09 || char === 0x0d || char === 0x2c) continue;
        if (this.insideArray && this.depth === 0 && char === 0x5b) {
          this.depth = 1;
          continue;
        }
        if (this.insideArray && this.depth === 1 && char === 0x5d) {
          this.depth = 0;
          continue;
        }
        if (char !== 0x7b && char !== 0x5b) {
          // A scalar array element, or text between records: report it once, skip to the next record.
          if (!this.inJunk) {
            this.count += 1;
            const reason = this.insideArray
              ? 'array element is not a JSON object'
              : 'unexpected text between JSON records';
            out.push({ ok: false, reason, location: `record ${this.count} (line ${line})` });
          }
          if (char === 0x22) this.inString = true;
          this.inJunk = true;
          continue;
        }
        this.inJunk = false;
        this.inValue = true;
        segmentStart = index;
        this.startLine = line;
      }
      if (char === 0x22) this.inString = true;
      else if (char === 0x7b || char === 0x5b) this.depth += 1;
      else if (char === 0x7d || char === 0x5d) {
        this.depth -= 1;
        if (this.depth === this.base) {
          this.keep(text.slice(segmentStart, index + 1));
          this.count += 1;
          out.push(
            this.valueChars > inputLimits.jsonValueChars
              ? {
                  ok: false,
                  reason: tooLong('JSON value', this.valueChars, inputLimits.jsonValueChars),
                  location: `record ${this.count} (line ${this.startLine})`,
                }
              : parseValue(this.parts.join('\n'), this.count, this.startLine),
          );
          this.parts = [];
          this.valueChars = 0;
          this.inValue = false;
        }
      }
    }
    if (this.inValue) this.keep(text.slice(segmentStart));
  }

  /** Keeps one line's part of the current value, unless the value has grown past the cap. */
  private keep(part: string): void {
    this.valueChars += part.length + (this.parts.length > 0 ? 1 : 0);
    if (this.valueChars > inputLimits.jsonValueChars) this.parts = [];
    else this.parts.push(part);
  }

  /**
   * Forgets the value under way after a line was skipped (over-long): the brackets it held are
   * unknown, so scanning resumes at the next object as if between records.
   */
  abandon(): void {
    this.depth = this.base;
    this.inString = false;
    this.escaped = false;
    this.inValue = false;
    this.inJunk = true;
    this.parts = [];
    this.valueChars = 0;
  }

  /** Reports a value still open when the input ends. */
  end(out: JsonRecord[]): void {
    if (!this.inValue) return;
    this.count += 1;
    out.push({
      ok: false,
      reason: 'unterminated JSON value at end of input',
      location: `record ${this.count} (line ${this.startLine})`,
    });
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
