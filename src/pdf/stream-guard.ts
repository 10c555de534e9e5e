import { inflateSync } from 'node:zlib';
import { AppError } from '../domain/errors.js';

/**
 * Deflate's largest expansion: a length-258 match coded in two bits, 1032 output bytes per input
 * byte (the zlib FAQ's "1032:1"); a few hundred bytes more cover the stream's start.
 */
const maxInflateRatio = 1032;
const inflateSlack = 1024;

/**
 * Refuses decompression bombs before pdf.js sees them. pdf.js keeps a decoded stream whole in one
 * ArrayBuffer, and ArrayBuffers live outside the V8 heap, so a worker's heap limit cannot stop a
 * content stream that inflates to gigabytes: it would take the whole process's memory. Every
 * Flate stream but images (whose size pdf.js bounds itself) and streams too short to reach the cap
 * is therefore inflated here first (native zlib) with a cap on its output. Streams that fail to
 * inflate are left to pdf.js, which recovers what it can.
 */
export function assertNoDecompressionBomb(bytes: Uint8Array, maxStreamBytes: number): void {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('latin1');
  const keyword = /stream\r?\n/g;
  for (let match = keyword.exec(text); match; match = keyword.exec(text)) {
    if (text.slice(Math.max(0, match.index - 3), match.index) === 'end') continue;
    const dictionaryStart = Math.max(0, match.index - 1000);
    const dictionary = text.slice(dictionaryStart, match.index);
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) break;
    keyword.lastIndex = end + 9;
    // A stream too short to reach the cap even at deflate's largest ratio cannot be a bomb: most
    // content streams and fonts are, and inflating them here doubled the engine's own work.
    if ((end - start) * maxInflateRatio + inflateSlack <= maxStreamBytes) continue;
    // Only the dictionary right before this stream counts (the last "obj" in the window).
    const own = dictionary.slice(dictionary.lastIndexOf('obj') + 1);
    if (!/\/FlateDecode|\/Fl\b/.test(own)) continue;
    // pdf.js decodes only the declared pixels of an image (and none past its maxImageSize).
    if (/\/Subtype\s*\/Image/.test(own) && /\/Width\s+\d/.test(own) && /\/Height\s+\d/.test(own)) continue;
    try {
      inflateSync(buffer.subarray(start, end), { maxOutputLength: maxStreamBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new AppError(
          'unprocessable',
          `The PDF has a compressed stream that expands to more than ${Math.round(maxStreamBytes / 1048576)} MB; it is refused as a decompression bomb.`,
          { param: 'file' },
        );
      }
    }
  }
}
