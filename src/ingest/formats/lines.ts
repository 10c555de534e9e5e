/**
 * Streaming helpers shared by the format readers: decode a byte/text stream and split it into lines
 * without ever holding more than one line (plus one chunk) in memory.
 */

/** One line of an input, without its line break, with its 1-based line number. */
export interface NumberedLine {
  text: string;
  line: number;
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

/**
 * Splits text pushed chunk by chunk into numbered lines (`\n` or `\r\n`), synchronously, so a
 * reader can split and parse a whole chunk without an async step per line (the JSONL fast path).
 * A byte-order mark at the very start is dropped.
 */
export class LineSplitter {
  private pending = '';
  private line = 0;
  private started = false;

  /** Appends the complete lines of `text` to `out`; an unfinished last line waits for the next chunk. */
  push(text: string, out: NumberedLine[]): void {
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    }
    let end = chunk.indexOf('\n');
    if (end === -1) {
      this.pending += chunk;
      return;
    }
    // The first line of the chunk completes whatever the previous chunk left pending.
    let head = this.pending + chunk.slice(0, end);
    let start = 0;
    while (end !== -1) {
      this.line += 1;
      out.push({ text: head.endsWith('\r') ? head.slice(0, -1) : head, line: this.line });
      start = end + 1;
      end = chunk.indexOf('\n', start);
      if (end !== -1) head = chunk.slice(start, end);
    }
    this.pending = chunk.slice(start);
  }

  /** Appends the last line when the input did not end with a line break. */
  end(out: NumberedLine[]): void {
    if (this.pending.length === 0) return;
    this.line += 1;
    out.push({
      text: this.pending.endsWith('\r') ? this.pending.slice(0, -1) : this.pending,
      line: this.line,
    });
    this.pending = '';
  }
}

/**
 * Splits a stream into lines (`\n` or `\r\n`), numbered from 1. A byte-order mark at the start is
 * dropped. The last line is yielded even without a final line break.
 */
export async function* readLines(input: AsyncIterable<string | Uint8Array>): AsyncGenerator<NumberedLine> {
  const splitter = new LineSplitter();
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
