import { inputLimits, tooLong } from '../limits/input-limits.js';
import { readLines } from './lines.js';

/**
 * One entry of a line-oriented bibliography file (a BibTeX entry, a RIS record) and where it starts.
 * `refused` says why it is rejected unread (too long); its `text` is then empty, never a cut text.
 */
export interface TextEntry {
  text: string;
  line: number;
  refused?: string;
}

/** How entries are delimited: a line that starts one, and optionally a line that ends one. */
export interface EntryBounds {
  isStart: (line: string) => boolean;
  isEnd?: (line: string) => boolean;
  /**
   * Longest entry kept, and so longest line read (characters; default `inputLimits.entryChars`).
   * A longer line is skipped as it streams past, and the entry holding it (or a longer entry) is
   * yielded `refused`, so it is never parsed from a cut text.
   */
  maxLength?: number;
}

/**
 * Splits a stream into entries at their start (and end) lines without parsing them; text outside
 * entries (comments between BibTeX entries) is dropped. Only one entry, of at most `maxLength`
 * characters, is held at a time. An over-long line outside any entry is yielded `refused` too:
 * it may be a whole entry on one line, and cannot be looked at.
 */
export async function* splitEntries(
  input: AsyncIterable<string | Uint8Array>,
  bounds: EntryBounds,
): AsyncGenerator<TextEntry> {
  const maxLength = bounds.maxLength ?? inputLimits.entryChars;
  let lines: string[] = [];
  let length = 0;
  let start = 0;
  let open = false;
  let overLongLine: string | undefined;
  const finish = (): TextEntry => {
    const refused = overLongLine ?? (length > maxLength ? tooLong('entry', length, maxLength) : undefined);
    const entry = refused ? { text: '', line: start, refused } : { text: lines.join('\n'), line: start };
    lines = [];
    length = 0;
    open = false;
    overLongLine = undefined;
    return entry;
  };
  for await (const { text, line, overLength } of readLines(input, { maxLineChars: maxLength })) {
    if (overLength !== undefined) {
      const reason = `${tooLong(`line ${line}`, overLength, maxLength)}; skipped without reading it`;
      if (!open) {
        yield { text: '', line, refused: reason };
        continue;
      }
      overLongLine ??= reason;
      lines = [];
      length += overLength + 1;
      continue;
    }
    if (bounds.isStart(text)) {
      if (open) yield finish();
      open = true;
      lines = [text];
      length = text.length;
      start = line;
    } else if (open) {
      length += text.length + 1;
      // Past the cap (or after an over-long line) only the length is kept, for the reason.
      if (length <= maxLength && overLongLine === undefined) lines.push(text);
      else lines = [];
    }
    if (open && bounds.isEnd?.(text)) yield finish();
  }
  if (open) yield finish();
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
