import { z } from 'zod';

/**
 * One printed line of a chunk: `[page, x0, top, x1, bottom, start, end]`, its box in points with
 * the origin at the top left of the displayed page, and the span `[start, end)` of the chunk's text
 * it holds (headings' `#`, spaces and removed hyphens fall outside every span).
 */
export type ChunkLine = [number, number, number, number, number, number, number];

/** A highlighted area of a page, in fractions of the displayed page (origin top left). */
export const pageBoxSchema = z
  .object({
    page: z.number().int().min(1).describe('Page number (1-based).'),
    x0: z.number().describe('Left edge, as a fraction of the page width (0 = left, 1 = right).'),
    y0: z.number().describe('Top edge, as a fraction of the page height (0 = top, 1 = bottom).'),
    x1: z.number().describe('Right edge, as a fraction of the page width.'),
    y1: z.number().describe('Bottom edge, as a fraction of the page height.'),
  })
  .meta({ id: 'PageBox' });

export type PageBox = z.infer<typeof pageBoxSchema>;

/** Where a stretch of text is printed: its pages and the boxes that outline it. */
export interface PageAnchor {
  pages: number[];
  boxes: PageBox[];
}

interface LineBox {
  page: number;
  x0: number;
  top: number;
  x1: number;
  bottom: number;
  /** The whole line is inside the range (not cut at the start or end of a quote). */
  whole: boolean;
}

/**
 * The pages and boxes of the characters `[start, end)` of a chunk, from its printed lines. A line
 * the range only partly covers gets the matching share of its width (characters are taken as
 * equally wide); whole lines of one column that follow each other are merged into one box, so a
 * paragraph is one rectangle per column and page. Null when no line holds the range, or when the
 * page sizes are unknown.
 */
export function anchorOf(
  lines: readonly ChunkLine[] | undefined,
  pageSizes: ReadonlyArray<readonly [number, number]> | undefined,
  start: number,
  end: number,
): PageAnchor | null {
  if (!lines || !pageSizes || end <= start) return null;
  const boxes: LineBox[] = [];
  for (const [page, x0, top, x1, bottom, from, to] of lines) {
    if (to <= start || from >= end || to <= from) continue;
    const width = x1 - x0;
    const left = Math.max(0, (start - from) / (to - from));
    const right = Math.min(1, (end - from) / (to - from));
    // Characters are not equally wide: a cut end is widened by a character either way.
    const slack = width / (to - from);
    boxes.push({
      page,
      x0: left === 0 ? x0 : Math.max(x0, x0 + width * left - slack),
      x1: right === 1 ? x1 : Math.min(x1, x0 + width * right + slack),
      top,
      bottom,
      whole: left === 0 && right === 1,
    });
  }
  if (boxes.length === 0) return null;
  const merged: LineBox[] = [];
  for (const box of boxes) {
    const last = merged[merged.length - 1];
    if (last?.whole && box.whole && sameColumn(last, box)) {
      last.x0 = Math.min(last.x0, box.x0);
      last.x1 = Math.max(last.x1, box.x1);
      last.top = Math.min(last.top, box.top);
      last.bottom = Math.max(last.bottom, box.bottom);
    } else merged.push({ ...box });
  }
  const result: PageBox[] = [];
  for (const box of merged) {
    const size = pageSizes[box.page - 1];
    if (!size || size[0] <= 0 || size[1] <= 0) continue;
    const [width, height] = size;
    result.push({
      page: box.page,
      x0: fraction(box.x0 / width),
      y0: fraction(box.top / height),
      x1: fraction(box.x1 / width),
      y1: fraction(box.bottom / height),
    });
  }
  if (result.length === 0) return null;
  return { pages: [...new Set(result.map((box) => box.page))].sort((a, b) => a - b), boxes: result };
}

/** The next line of the same column: same page, just below, overlapping horizontally by half. */
function sameColumn(previous: LineBox, line: LineBox): boolean {
  if (previous.page !== line.page) return false;
  const height = Math.max(1, line.bottom - line.top);
  const gap = line.top - previous.bottom;
  if (gap < -height || gap > height) return false;
  const overlap = Math.min(previous.x1, line.x1) - Math.max(previous.x0, line.x0);
  return overlap > 0.5 * Math.min(previous.x1 - previous.x0, line.x1 - line.x0);
}

function fraction(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 10000) / 10000;
}
