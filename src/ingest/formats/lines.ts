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
 * Splits a stream into lines (`\n` or `\r\n`), numbered from 1. A byte-order mark at the start is
 * dropped. The last line is yielded even without a final line break.
 */
export async function* readLines(input: AsyncIterable<string | Uint8Array>): AsyncGenerator<NumberedLine> {
  let pending = '';
  let line = 0;
  let first = true;
  for await (let text of decodeText(input)) {
    if (first) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    let start = 0;
    let end = text.indexOf('\n');
    if (end === -1) {
      pending += text;
      continue;
    }
    // The first line of the chunk completes whatever the previous chunk left pending.
    let head = pending + text.slice(0, end);
    pending = '';
    while (end !== -1) {
      line += 1;
      yield { text: head.endsWith('\r') ? head.slice(0, -1) : head, line };
      start = end + 1;
      end = text.indexOf('\n', start);
      if (end !== -1) head = text.slice(start, end);
    }
    pending = text.slice(start);
  }
  if (pending.length > 0) {
    line += 1;
    yield { text: pending.endsWith('\r') ? pending.slice(0, -1) : pending, line };
  }
}

/** An async iterable over fixed texts, handy for tests and for reading a string as an input. */
export async function* textInput(...chunks: (string | Uint8Array)[]): AsyncGenerator<string | Uint8Array> {
  for (const chunk of chunks) yield chunk;
}
