import type { TextLine, TextRun } from './layout-types.js';

/**
 * Groups positioned runs into line segments: runs whose em boxes overlap vertically by half and
 * that are horizontally close (gap at most `columnGapEm` ems) belong together. Because closeness is
 * horizontal too, the two columns of a page never share a line even when their baselines are a
 * little offset, and a subscript joins the line it belongs to rather than the neighbouring column.
 */
export function buildLines(runs: TextRun[], page: number, columnGapEm = 1): TextLine[] {
  const sorted = tameOutsizedSymbols(runs.filter((run) => run.text.trim().length > 0 && run.size > 0)).sort(
    (a, b) => a.y - b.y || a.x - b.x,
  );
  const segments: Segment[] = [];
  for (const run of sorted) {
    let best: Segment | undefined;
    let bestOverlap = 0;
    for (let index = segments.length - 1; index >= 0; index--) {
      const segment = segments[index] as Segment;
      if (segment.reference.y < run.y - 3 * Math.max(run.size, segment.reference.size)) break;
      const overlap = verticalOverlap(segment.reference, run);
      if (overlap < 0.5 * Math.min(segment.reference.size, run.size)) continue;
      if (horizontalGap(segment, run) > columnGapEm * Math.max(segment.reference.size, run.size)) continue;
      if (overlap > bestOverlap) {
        best = segment;
        bestOverlap = overlap;
      }
    }
    if (best) add(best, run);
    else segments.push({ runs: [run], reference: run, x0: run.x, x1: run.x + run.width });
  }
  const merged = mergeSegments(segments, columnGapEm);
  return merged.map((segment) => toLine(segment.runs.sort((a, b) => a.x - b.x).filter(notDuplicate), page));
}

/**
 * A lone glyph set far above the page's body size (a display-math sum or integral from an extension
 * font, which PDFium reports at 3-4 times the text size) would otherwise stand for its line's em box:
 * lines above and below would overlap it, and a column gap of one of its ems would bridge the
 * gutter. Such glyphs are grouped at the body size; their position stays.
 */
function tameOutsizedSymbols(runs: TextRun[]): TextRun[] {
  const body = bodySize(runs);
  if (!body) return runs;
  return runs.map((run) =>
    run.size > 2 * body && run.text.trim().length <= 2 && !/\p{L}{2}/u.test(run.text)
      ? { ...run, size: body }
      : run,
  );
}

/** The size most characters on the page are set in. */
function bodySize(runs: TextRun[]): number | undefined {
  const weights = new Map<number, number>();
  for (const run of runs) {
    const size = Math.round(run.size * 10) / 10;
    weights.set(size, (weights.get(size) ?? 0) + run.text.length);
  }
  return heaviest(weights);
}

interface Segment {
  runs: TextRun[];
  /** The largest run: its em box stands for the line's. */
  reference: TextRun;
  x0: number;
  x1: number;
}

function add(segment: Segment, run: TextRun): void {
  segment.runs.push(run);
  if (run.size > segment.reference.size) segment.reference = run;
  segment.x0 = Math.min(segment.x0, run.x);
  segment.x1 = Math.max(segment.x1, run.x + run.width);
}

function horizontalGap(segment: Segment, run: TextRun): number {
  return Math.max(run.x - segment.x1, segment.x0 - (run.x + run.width));
}

/** Segments that ended up side by side on one line (a run bridged them later) become one. */
function mergeSegments(segments: Segment[], columnGapEm: number): Segment[] {
  const alive = [...segments];
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 0; i < alive.length && !changed; i++) {
      const a = alive[i] as Segment;
      for (let j = i + 1; j < alive.length; j++) {
        const b = alive[j] as Segment;
        if (b.reference.y > a.reference.y + 2 * a.reference.size) break;
        const size = Math.max(a.reference.size, b.reference.size);
        const gap = Math.max(b.x0 - a.x1, a.x0 - b.x1);
        // A section number set apart from its title ("I.   INTRODUCTION") stays on its line. The
        // numbering test (a join and a pattern) runs only for a gap that needs it.
        if (
          verticalOverlap(a.reference, b.reference) >= 0.5 * Math.min(a.reference.size, b.reference.size) &&
          (gap <= columnGapEm * size || (gap <= 3 * columnGapEm * size && (isNumbering(a) || isNumbering(b))))
        ) {
          for (const run of b.runs) add(a, run);
          alive.splice(j, 1);
          changed = true;
          break;
        }
      }
    }
  }
  return alive;
}

function isNumbering(segment: Segment): boolean {
  if (segment.runs.length > 2) return false;
  const text = segment.runs
    .map((run) => run.text)
    .join('')
    .trim();
  return /^(?:[IVX]{1,5}|\d{1,2}(?:\.\d{1,2}){0,3}|[A-H])\.?$/.test(text);
}

function verticalOverlap(a: TextRun, b: TextRun): number {
  return Math.min(a.y, b.y) - Math.max(a.y - a.size, b.y - b.size);
}

/** Some producers draw text twice with a tiny offset to fake bold; keep one copy. */
function notDuplicate(run: TextRun, index: number, runs: TextRun[]): boolean {
  const previous = runs[index - 1];
  return !(
    previous &&
    previous.text === run.text &&
    Math.abs(previous.x - run.x) < 0.2 * run.size &&
    Math.abs(previous.y - run.y) < 0.2 * run.size
  );
}

function toLine(runs: TextRun[], page: number): TextLine {
  let text = '';
  let previous: TextRun | undefined;
  const weightBySize = new Map<number, number>();
  const weightByFont = new Map<string, number>();
  for (const run of runs) {
    let piece = run.text;
    if (previous) {
      const gap = run.x - (previous.x + previous.width);
      const em = Math.min(previous.size, run.size);
      const end = previous.text.charCodeAt(previous.text.length - 1);
      if ((end === 0x2d || end === 0x2010) && gap < 0.1 * em) {
        // A soft hyphen after a hard one ("system-\u00ad intrinsic") reaches us as a space.
        piece = piece.trimStart();
      } else if (!isSpace(end) && !isSpace(piece.charCodeAt(0))) {
        // pdf.js' own space items are a hint only: it puts them into "SARS-|CoV-2" (0.03 em apart) too.
        if (gap > 0.15 * em || (previous.spaceAfter === true && gap > 0.08 * em)) text += ' ';
      }
    }
    text += piece;
    const weight = run.text.trim().length;
    const size = Math.round(run.size * 10) / 10;
    weightBySize.set(size, (weightBySize.get(size) ?? 0) + weight);
    weightByFont.set(run.font, (weightByFont.get(run.font) ?? 0) + weight);
    previous = run;
  }
  const first = runs[0] as TextRun;
  const last = runs[runs.length - 1] as TextRun;
  const size = heaviest(weightBySize) ?? first.size;
  // Plain loops over the runs (this runs for every line of every page): the lowest baseline of the
  // runs in the line's size, the rightmost edge, the fonts that carry letters.
  let bottom = Number.NEGATIVE_INFINITY;
  let x1 = last.x + last.width;
  for (const run of runs) {
    if (run.size >= size * 0.9) bottom = Math.max(bottom, run.y);
    x1 = Math.max(x1, run.x + run.width);
  }
  let fontsWithLetters = 0;
  for (const weight of weightByFont.values()) if (weight > 0) fontsWithLetters++;
  return {
    text: singleSpaced(text),
    x0: first.x,
    x1,
    top: bottom - size,
    bottom,
    size,
    font: heaviest(weightByFont) ?? first.font,
    uniformFont: fontsWithLetters <= 1,
    page,
  };
}

/** White space collapsed to single spaces and trimmed; most lines have only single spaces already. */
function singleSpaced(text: string): string {
  return (/[^\S ]| {2}/.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

/** `/\s/` for one UTF-16 code (char codes instead of a regex per word: this runs for every word of every page). */
function isSpace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0xa0 || Number.isNaN(code)) return false;
  return /\s/.test(String.fromCharCode(code));
}

function heaviest<K>(weights: Map<K, number>): K | undefined {
  let best: K | undefined;
  let bestWeight = -1;
  for (const [key, weight] of weights) {
    if (weight > bestWeight) {
      best = key;
      bestWeight = weight;
    }
  }
  return best;
}
