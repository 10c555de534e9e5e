import { inflateSync } from 'node:zlib';

/** Inflated object streams are read up to this size each (the count sits in small dictionaries). */
const maxInflatedBytes = 8 * 1024 * 1024;

/**
 * The number of pages a PDF declares, for the progress lines of `alexandria ingest`: the largest
 * `/Count` of a `/Type /Pages` node (the root of the page tree counts every page), looked for in
 * the file's plain objects and in its compressed object streams (PDF 1.5+). Display only: the
 * service parses the PDF itself, in its worker threads and with its limits; undefined when the
 * count cannot be found this way.
 */
export function declaredPageCount(bytes: Uint8Array): number | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let best = largestPagesCount(buffer.toString('latin1'));
  for (const stream of objectStreams(buffer)) {
    const count = largestPagesCount(stream);
    if (count !== undefined && (best === undefined || count > best)) best = count;
  }
  return best;
}

function largestPagesCount(text: string): number | undefined {
  let best: number | undefined;
  // A page tree node: `<< /Type /Pages /Kids [...] /Count 12 >>`, keys in any order.
  for (const match of text.matchAll(/<<((?:(?!<<|>>)[\s\S]){0,4000}?\/Type\s*\/Pages\b[\s\S]{0,4000}?)>>/g)) {
    const count = /\/Count\s+(\d{1,7})\b/.exec(match[1] ?? '');
    const value = count ? Number(count[1]) : undefined;
    if (value !== undefined && (best === undefined || value > best)) best = value;
  }
  return best;
}

/** The inflated text of each `/Type /ObjStm` stream compressed with FlateDecode. */
function* objectStreams(buffer: Buffer): Generator<string> {
  const text = buffer.toString('latin1');
  const header = /\/Type\s*\/ObjStm\b[\s\S]{0,2000}?stream\r?\n/g;
  for (let match = header.exec(text); match; match = header.exec(text)) {
    const dictionaryStart = text.lastIndexOf('<<', match.index);
    const dictionary = text.slice(dictionaryStart, match.index + match[0].length);
    if (!/\/FlateDecode\b/.test(dictionary) || /\/DecodeParms\b/.test(dictionary)) continue;
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) return;
    try {
      yield inflateSync(buffer.subarray(start, end), { maxOutputLength: maxInflatedBytes }).toString(
        'latin1',
      );
    } catch {
      // A stream that does not inflate (truncated, other filter) holds no count we can read.
    }
  }
}
