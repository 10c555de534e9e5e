/**
 * Streaming helpers shared by the format readers: decode a byte/text stream and split it into lines
 * without ever holding more than one line (plus one chunk) in memory.
 */

/** One line of an input, without its line break, with its 1-based line number. */
export interface NumberedLine {
  text: string;
  line: number;
  /**
   * Set when the line was longer than the splitter's `maxLineChars`: its length in characters.
   * `text` is then empty — the line was skipped as it streamed past, never held.
   */
  overLength?: number;
}

/** Decodes chunks as UTF-8 text (bytes) or passes them through (strings), keeping split characters intact. */
export async function* decodeText(input: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  let decoder: TextDecoder | undefined;
  for await (const chunk of input) {
    if (typeof chunk === 'string') {
      if (chunk.length > 0) yield chunk;
      continue;
    }
    decoder ??= new TextDecoder('utf-8');
    const text = decoder.decode(chunk, { stream: true });
    if (text.length > 0) yield text;
  }
  const rest = decoder?.decode();
  if (rest) yield rest;
}

export interface LineSplitterOptions {
  /**
   * Longest line kept, in characters (default: no limit). A longer line is not buffered: its
   * characters are dropped as they arrive up to the next line break, and it comes out as an empty
   * line with `overLength` set, so the reader can reject it by number and go on with the next.
   */
  maxLineChars?: number;
}

/**
 * Splits text pushed chunk by chunk into numbered lines (`\n` or `\r\n`), synchronously, so a
 * reader can split and parse a whole chunk without an async step per line (the JSONL fast path).
 * A byte-order mark at the very start is dropped. At most one line (up to `maxLineChars`) is held.
 */
export class LineSplitter {
  /** Longest line kept; may be tightened while reading (once a reader knows the file's layout). */
  maxLineChars: number;
  private pending = '';
  private line = 0;
  private started = false;
  /** Characters of the current over-long line seen so far, or -1 when not inside one. */
  private skipped = -1;

  constructor(options: LineSplitterOptions = {}) {
    this.maxLineChars = options.maxLineChars ?? Number.POSITIVE_INFINITY;
  }

  /** Characters of the unfinished line held now (never more than `maxLineChars`). */
  get pendingChars(): number {
    return this.pending.length;
  }

  /** Appends the complete lines of `text` to `out`; an unfinished last line waits for the next chunk. */
  push(text: string, out: NumberedLine[]): void {
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf('\n', start);
      const stop = end === -1 ? chunk.length : end;
      if (this.skipped >= 0) {
        this.skipped += stop - start;
      } else if (this.pending.length + (stop - start) > this.maxLineChars) {
        // Over the cap: forget what is held and count the rest of the line instead of keeping it.
        this.skipped = this.pending.length + (stop - start);
        this.pending = '';
      } else if (end === -1) {
        this.pending += chunk.slice(start);
      } else {
        // The first line of the chunk completes whatever the previous chunk left pending.
        const whole =
          this.pending.length > 0 ? this.pending + chunk.slice(start, end) : chunk.slice(start, end);
        this.pending = '';
        this.line += 1;
        out.push({ text: whole.endsWith('\r') ? whole.slice(0, -1) : whole, line: this.line });
      }
      if (end === -1) return;
      if (this.skipped >= 0) this.endSkipped(out);
      start = end + 1;
    }
  }

  /** Appends the last line when the input did not end with a line break. */
  end(out: NumberedLine[]): void {
    if (this.skipped >= 0) {
      this.endSkipped(out);
      return;
    }
    if (this.pending.length === 0) return;
    this.line += 1;
    out.push({
      text: this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending,
      line: this.line,
    });
    this.pending = '';
  }

  private endSkipped(out: NumberedLine[]): void {
    this.line += 1;
    out.push({ text: '', line: this.line, overLength: this.skipped });
    this.skipped = -1;
  }
}

/**
 * Splits a stream into lines (`\n` or `\r\n`), numbered from 1. A byte-order mark at the start is
 * dropped. The last line is yielded even without a final line break. A line over `maxLineChars`
 * is yielded empty with `overLength` set (see `LineSplitter`).
 */
export async function* readLines(
  input: AsyncIterable<string | Uint8Array>,
  options: LineSplitterOptions = {},
): AsyncGenerator<NumberedLine> {
  const splitter = new LineSplitter(options);
  const lines: NumberedLine[] = [];
  for await (const text of decodeText(input)) {
    splitter.push(text, lines);
    for (const line of lines) yield line;
    lines.length = 0;
  }
  splitter.end(lines);
  for (const line of lines) yield line;
}

/** An async iterable over fixed texts, handy for tests and for reading a string as an input. */
export async function* textInput(...chunks: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
