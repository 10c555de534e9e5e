import type { ChunkLine } from '../ports/pdf-extractor.js';
import { letterKey, letterOffsets } from '../text/letter-stream.js';
import type { LineSpan, TextLine } from './layout-types.js';

/**
 * The spans of a block's lines in the block's letter stream. The lines' streams normally add up to
 * the block's; where cleaning changed a letter, each line is looked for from where the last one
 * ended, and a line that cannot be found gets no span (its text is then not anchored).
 */
export function lineSpans(blockText: string, lines: readonly TextLine[]): LineSpan[] {
  const stream = letterKey(blockText);
  const keys = lines.map((line) => letterKey(line.text));
  const spans: LineSpan[] = [];
  const exact = keys.join('') === stream;
  let cursor = 0;
  lines.forEach((line, index) => {
    const key = keys[index] ?? '';
    if (key.length === 0) return;
    let start = cursor;
    if (!exact) {
      const found = stream.indexOf(key, cursor);
      if (found < 0 || found - cursor > 40) return;
      start = found;
    }
    cursor = start + key.length;
    spans.push({
      page: line.page,
      x0: line.x0,
      top: line.top,
      x1: line.x1,
      bottom: line.bottom,
      start,
      end: cursor,
    });
  });
  return spans;
}

/**
 * The lines of one piece of a block (letters `[from, to)` of the block's stream), placed in a chunk
 * whose text holds the piece at `chunkOffset`: spans become character offsets into the chunk.
 * Coordinates are rounded to a tenth of a point.
 */
export function pieceLines(
  pieceText: string,
  chunkOffset: number,
  spans: readonly LineSpan[],
  from: number,
  to: number,
): ChunkLine[] {
  const offsets = letterOffsets(pieceText);
  const lines: ChunkLine[] = [];
  for (const span of spans) {
    const start = Math.max(span.start, from);
    const end = Math.min(span.end, to, from + offsets.length);
    if (end <= start) continue;
    const first = offsets[start - from] as number;
    const last = offsets[end - 1 - from] as number;
    lines.push([
      span.page,
      round(span.x0),
      round(span.top),
      round(span.x1),
      round(span.bottom),
      chunkOffset + first,
      chunkOffset + last + 1,
    ]);
  }
  return lines;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
