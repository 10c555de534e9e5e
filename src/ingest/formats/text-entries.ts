import { readLines } from './lines.js';

/** One entry of a line-oriented bibliography file (a BibTeX entry, a RIS record) and where it starts. */
export interface TextEntry {
  text: string;
  line: number;
}

/** How entries are delimited: a line that starts one, and optionally a line that ends one. */
export interface EntryBounds {
  isStart: (line: string) => boolean;
  isEnd?: (line: string) => boolean;
  /** Longest entry kept (characters); longer ones are cut here and fail to parse, not buffered. */
  maxLength?: number;
}

/**
 * Splits a stream into entries at their start (and end) lines without parsing them; text outside
 * entries (comments between BibTeX entries) is dropped. Only one entry is held at a time.
 */
export async function* splitEntries(
  input: AsyncIterable<string | Uint8Array>,
  bounds: EntryBounds,
): AsyncGenerator<TextEntry> {
  const maxLength = bounds.maxLength ?? 4 * 1024 * 1024;
  let lines: string[] = [];
  let length = 0;
  let start = 0;
  for await (const { text, line } of readLines(input)) {
    if (bounds.isStart(text)) {
      if (lines.length > 0) yield { text: lines.join('\n'), line: start };
      lines = [text];
      length = text.length;
      start = line;
    } else if (lines.length > 0 && length < maxLength) {
      lines.push(text);
      length += text.length + 1;
    }
    if (lines.length > 0 && bounds.isEnd?.(text)) {
      yield { text: lines.join('\n'), line: start };
      lines = [];
      length = 0;
    }
  }
  if (lines.length > 0) yield { text: lines.join('\n'), line: start };
}

/**
 * Groups entries into batches (bounded by count and size) so a maintained parser is called once per
 * batch rather than once per entry; a huge file still holds only one batch.
 */
export async function* batchEntries(
  entries: AsyncIterable<TextEntry>,
  maxCount = 100,
  maxChars = 512 * 1024,
): AsyncGenerator<TextEntry[]> {
  let batch: TextEntry[] = [];
  let chars = 0;
  for await (const entry of entries) {
    batch.push(entry);
    chars += entry.text.length;
    if (batch.length >= maxCount || chars >= maxChars) {
      yield batch;
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) yield batch;
}
