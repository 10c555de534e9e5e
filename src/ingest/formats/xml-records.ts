import { decodeText } from './lines.js';

/** What `splitXmlRecords` looks for. */
export interface XmlSplitOptions {
  /** Element names that are one record each (`PubmedArticle`, `paper`, `us-patent-grant`). */
  records: readonly string[];
  /** Element names whose start tags are reported as context (`collection`, `volume`). */
  containers?: readonly string[];
  /** A record larger than this (characters) is rejected rather than buffered further. */
  maxRecordLength?: number;
}

/** A record element (its complete text) or the start tag of a container, with where it starts. */
export type XmlEvent =
  | { kind: 'record'; name: string; xml: string; index: number; offset: number }
  | { kind: 'open'; name: string; tag: string; offset: number }
  | { kind: 'error'; name: string; reason: string; index: number; offset: number };

/** `record 3 (byte 40960)`: how readers locate an XML record. */
export function xmlLocation(event: { index: number; offset: number }): string {
  return `record ${event.index} (byte ${event.offset})`;
}

/**
 * Splits a stream of XML text into record elements without parsing the whole document: only the
 * current record is buffered, so a multi-GB PubMed baseline or USPTO weekly file (many concatenated
 * `<?xml …?>` documents) streams in constant memory. Each record is then parsed on its own. A record
 * whose end tag is missing (the next record starts first, or the input ends) is reported as an error.
 * Records of the same name must not nest (true of every format read here).
 */
export async function* splitXmlRecords(
  input: AsyncIterable<string | Uint8Array>,
  options: XmlSplitOptions,
): AsyncGenerator<XmlEvent> {
  const records = new Set(options.records);
  const names = [...options.records, ...(options.containers ?? [])];
  const startPattern = new RegExp(`<(${names.map(escapeRegex).join('|')})(?=[\\s>/])`, 'g');
  const recordPattern = new RegExp(`<(${options.records.map(escapeRegex).join('|')})(?=[\\s>/])`, 'g');
  const keepTail = Math.max(...names.map((name) => name.length)) + 2;
  const maxRecordLength = options.maxRecordLength ?? 256 * 1024 * 1024;
  let buffer = '';
  let bufferOffset = 0;
  let index = 0;
  // How far the pending record was already searched for its end (so waiting for data is linear).
  let scanned = 0;

  const consume = (length: number) => {
    bufferOffset += Buffer.byteLength(buffer.slice(0, length));
    buffer = buffer.slice(length);
    scanned = 0;
  };

  for await (const text of withEnd(decodeText(input))) {
    const atEnd = text === null;
    if (text !== null) buffer += text;
    for (;;) {
      startPattern.lastIndex = 0;
      const match = startPattern.exec(buffer);
      if (!match) {
        consume(Math.max(0, buffer.length - (atEnd ? 0 : keepTail)));
        break;
      }
      const name = match[1] as string;
      const start = match.index;
      if (start > 0) consume(start);
      if (!records.has(name)) {
        const close = buffer.indexOf('>');
        if (close === -1) {
          if (atEnd) buffer = '';
          break;
        }
        yield { kind: 'open', name, tag: buffer.slice(0, close + 1), offset: bufferOffset };
        consume(close + 1);
        continue;
      }
      const endTag = `</${name}>`;
      const from = Math.max(1, scanned - endTag.length);
      const end = buffer.indexOf(endTag, from);
      recordPattern.lastIndex = from;
      const nextStart = recordPattern.exec(buffer)?.index ?? -1;
      if (nextStart !== -1 && (end === -1 || nextStart < end)) {
        index += 1;
        yield {
          kind: 'error',
          name,
          reason: `<${name}> is not closed before the next record`,
          index,
          offset: bufferOffset,
        };
        consume(nextStart);
        continue;
      }
      if (end === -1) {
        if (atEnd) {
          index += 1;
          yield {
            kind: 'error',
            name,
            reason: `<${name}> is not closed at the end of the input`,
            index,
            offset: bufferOffset,
          };
          buffer = '';
        } else if (buffer.length > maxRecordLength) {
          index += 1;
          yield {
            kind: 'error',
            name,
            reason: `<${name}> is larger than ${maxRecordLength} characters`,
            index,
            offset: bufferOffset,
          };
          consume(1);
          continue;
        }
        scanned = buffer.length;
        break;
      }
      index += 1;
      const length = end + endTag.length;
      yield { kind: 'record', name, xml: buffer.slice(0, length), index, offset: bufferOffset };
      consume(length);
    }
    if (atEnd) break;
  }
}

async function* withEnd(texts: AsyncIterable<string>): AsyncGenerator<string | null> {
  yield* texts;
  yield null;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
