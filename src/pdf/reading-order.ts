import type { TextLine } from './layout-types.js';

/**
 * Reading order of a page's line segments by a recursive XY-cut that prefers columns.
 *
 * A region is first searched for a gutter: a vertical strip (in the middle 60% of the region) that
 * no line crosses except a few "spanning" ones (titles, full-width captions), with text on both
 * sides. The spanning lines cut the region into horizontal bands; each band is read left of the
 * gutter, then right of it, recursively (three columns, nested layouts). A region without a gutter
 * is read top-down, left to right. This is independent of the content-stream order, which some
 * producers write right column first or bottom-up.
 */
export function orderLines(lines: TextLine[]): TextLine[] {
  return orderRegion(lines, 0);
}

const maxDepth = 6;

function orderRegion(lines: TextLine[], depth: number): TextLine[] {
  if (lines.length < 4 || depth >= maxDepth) return sortTopDown(lines);
  const gutter = findGutter(lines);
  if (!gutter) return sortTopDown(lines);

  const spanning: TextLine[] = [];
  const columnLines: TextLine[] = [];
  for (const line of lines) (isSpanning(line, gutter) ? spanning : columnLines).push(line);
  spanning.sort((a, b) => a.top - b.top || a.x0 - b.x0);

  // Band i holds the column lines between spanning line i-1 and spanning line i.
  const bands: TextLine[][] = Array.from({ length: spanning.length + 1 }, () => []);
  for (const line of columnLines) {
    const middle = (line.top + line.bottom) / 2;
    let band = 0;
    while (band < spanning.length && middle > centre(spanning[band] as TextLine)) band++;
    bands[band]?.push(line);
  }

  const ordered: TextLine[] = [];
  bands.forEach((band, index) => {
    const left = band.filter((line) => sideOf(line, gutter) === 'left');
    const right = band.filter((line) => sideOf(line, gutter) === 'right');
    ordered.push(...orderRegion(left, depth + 1), ...orderRegion(right, depth + 1));
    const divider = spanning[index];
    if (divider) ordered.push(divider);
  });
  return ordered;
}

interface Gutter {
  start: number;
  end: number;
}

/**
 * The emptiest vertical strip at least `minimumWidth` wide, if it separates enough text. Coverage is
 * counted on a 1-point grid; strips crossed by more lines are tried only if emptier ones fail, so
 * the strip found is the gutter itself, not a wider stretch around it.
 */
function findGutter(lines: TextLine[]): Gutter | undefined {
  const left = Math.min(...lines.map((line) => line.x0));
  const right = Math.max(...lines.map((line) => line.x1));
  const width = right - left;
  if (width < 100) return undefined;
  const sizes = lines.map((line) => line.size).sort((a, b) => a - b);
  const typicalSize = sizes[Math.floor(sizes.length / 2)] ?? 10;
  const minimumWidth = Math.max(4, 0.6 * typicalSize);

  const bins = Math.ceil(width) + 1;
  // Each line covers bins [from, to): marked at both ends, then summed left to right (a pass per
  // line over its width was most of this function's time).
  const changes = new Int32Array(bins + 1);
  for (const line of lines) {
    const from = Math.max(0, Math.floor(line.x0 - left));
    const to = Math.min(bins - 1, Math.ceil(line.x1 - left));
    if (from < to) {
      changes[from] = (changes[from] as number) + 1;
      changes[to] = (changes[to] as number) - 1;
    }
  }
  const coverage = new Int32Array(bins);
  let covered = 0;
  for (let bin = 0; bin < bins; bin++) {
    covered += changes[bin] as number;
    coverage[bin] = covered;
  }
  const zoneStart = Math.floor(0.2 * width);
  const zoneEnd = Math.ceil(0.8 * width);
  const maximumSpanning = Math.max(1, Math.floor(0.6 * lines.length));

  const levels = [...new Set(coverage.subarray(zoneStart, zoneEnd + 1))]
    .filter((level) => level <= maximumSpanning)
    .sort((a, b) => a - b);
  for (const allowed of levels) {
    let best: Gutter | undefined;
    let runStart = -1;
    for (let bin = zoneStart; bin <= zoneEnd + 1; bin++) {
      const open = bin <= zoneEnd && (coverage[bin] ?? 0) <= allowed;
      if (open && runStart < 0) runStart = bin;
      if (!open && runStart >= 0) {
        const candidate = { start: left + runStart, end: left + bin };
        if (
          candidate.end - candidate.start >= minimumWidth &&
          (!best || candidate.end - candidate.start > best.end - best.start) &&
          separates(lines, candidate)
        ) {
          best = candidate;
        }
        runStart = -1;
      }
    }
    if (best) return best;
  }
  return undefined;
}

/** A gutter must have real text on both sides and few lines crossing it. */
function separates(lines: TextLine[], gutter: Gutter): boolean {
  let leftLines = 0;
  let rightLines = 0;
  let spanning = 0;
  let leftChars = 0;
  let rightChars = 0;
  for (const line of lines) {
    if (isSpanning(line, gutter)) spanning++;
    else if (sideOf(line, gutter) === 'left') {
      leftLines++;
      leftChars += line.text.length;
    } else {
      rightLines++;
      rightChars += line.text.length;
    }
  }
  const minimumChars = 40;
  return (
    leftLines >= 2 &&
    rightLines >= 2 &&
    leftChars >= minimumChars &&
    rightChars >= minimumChars &&
    spanning <= 1.5 * (leftLines + rightLines)
  );
}

/** A line crossing the gutter that reaches well into both sides. */
function isSpanning(line: TextLine, gutter: Gutter): boolean {
  if (line.x0 >= gutter.start || line.x1 <= gutter.end) return false;
  const reach = Math.min(gutter.start - line.x0, line.x1 - gutter.end);
  return reach > 2 * line.size;
}

function sideOf(line: TextLine, gutter: Gutter): 'left' | 'right' {
  const middle = (gutter.start + gutter.end) / 2;
  const leftPart = Math.max(0, Math.min(line.x1, middle) - line.x0);
  const rightPart = Math.max(0, line.x1 - Math.max(line.x0, middle));
  return leftPart >= rightPart ? 'left' : 'right';
}

function centre(line: TextLine): number {
  return (line.top + line.bottom) / 2;
}

/** Top-down; lines whose baselines are within half a line count as one row, read left to right. */
export function sortTopDown(lines: TextLine[]): TextLine[] {
  const sorted = [...lines].sort((a, b) => a.bottom - b.bottom);
  const rows: TextLine[][] = [];
  for (const line of sorted) {
    const row = rows[rows.length - 1];
    const anchor = row?.[0];
    if (row && anchor && Math.abs(line.bottom - anchor.bottom) < 0.5 * Math.min(line.size, anchor.size)) {
      row.push(line);
    } else rows.push([line]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.x0 - b.x0));
}
