import type { TextLine, TextRun } from './layout-types.js';

/** Share of the page height at the top and at the bottom where running headers/footers live. */
const marginShare = 0.1;

/**
 * Removes running headers and footers: lines in the top or bottom margin whose text (digits
 * ignored, so "Page 3" matches "Page 4") recurs on several pages, plus bare page numbers there.
 * Returns the kept lines per page; the removed ones are reported for metadata sniffing.
 */
export function removeRunningLines(pages: Array<{ lines: TextLine[]; height: number }>): {
  kept: TextLine[][];
  removed: TextLine[][];
} {
  const marginLines = pages.map(({ lines, height }) => lines.filter((line) => inMargin(line, height)));
  const pagesByKey = new Map<string, Set<number>>();
  marginLines.forEach((lines, pageIndex) => {
    for (const line of lines) {
      const key = runningKey(line.text);
      // Bare numbers are page numbers or equation numbers, told apart by isPageNumber alone.
      if (!/\p{L}/u.test(key)) continue;
      let set = pagesByKey.get(key);
      if (!set) {
        set = new Set();
        pagesByKey.set(key, set);
      }
      set.add(pageIndex);
    }
  });
  // Journals alternate left/right headers, so each variant is on half the pages; 40% (two pages at
  // least) keeps a table whose header row happens to open a few pages.
  const minimumPages = Math.max(2, Math.ceil(pages.length * 0.4));
  const kept: TextLine[][] = [];
  const removed: TextLine[][] = [];
  pages.forEach(({ lines, height }) => {
    const keep: TextLine[] = [];
    const drop: TextLine[] = [];
    // A header row that holds the page number ("28   Amortization and Persistence") is running
    // text as a whole, even when its title changes every chapter.
    const numberRows = lines
      .filter((line) => inMargin(line, height) && isPageNumber(line.text))
      .map((line) => line.bottom);
    for (const line of lines) {
      const running =
        inMargin(line, height) &&
        (isPageNumber(line.text) ||
          numberRows.some((bottom) => Math.abs(bottom - line.bottom) < 0.3 * line.size) ||
          (pagesByKey.get(runningKey(line.text))?.size ?? 0) >= minimumPages);
      (running ? drop : keep).push(line);
    }
    kept.push(keep);
    removed.push(drop);
  });
  return { kept, removed };
}

function inMargin(line: TextLine, height: number): boolean {
  return line.top < height * marginShare || line.bottom > height * (1 - marginShare);
}

function runningKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/[^\p{L}#]+/gu, '');
}

/** "12", "- 12 -", "Page 12", "12 of 40", "iv" (not "(12)": that is an equation number). */
function isPageNumber(text: string): boolean {
  const trimmed = text.trim().toLowerCase();
  return (
    /^[-–—]?\s*\d{1,4}\s*[-–—]?$/.test(trimmed) ||
    /^page\s+\d{1,4}(\s+of\s+\d{1,4})?$/.test(trimmed) ||
    /^\d{1,4}\s+of\s+\d{1,4}$/.test(trimmed) ||
    /^[ivxlc]{1,6}$/.test(trimmed)
  );
}

/**
 * Removes line numbers: a column of bare integers at one x position, increasing down the page
 * (patents number every fifth line in the gutter, preprints number every line in the margin). Left
 * in, they would read as text and, in a gutter, bridge the gap between the columns.
 */
export function removeLineNumbers(runs: TextRun[]): TextRun[] {
  const numeric = runs.filter((run) => /^\s*\d{1,4}\s*$/.test(run.text));
  if (numeric.length < 4) return runs;
  const byColumn = new Map<number, TextRun[]>();
  for (const run of numeric) {
    const key = Math.round((run.x + run.width / 2) / 8);
    const column = byColumn.get(key) ?? byColumn.get(key - 1) ?? byColumn.get(key + 1) ?? [];
    if (column.length === 0) byColumn.set(key, column);
    column.push(run);
  }
  const drop = new Set<TextRun>();
  for (const column of byColumn.values()) {
    if (column.length < 4) continue;
    const sorted = [...column].sort((a, b) => a.y - b.y);
    const values = sorted.map((run) => Number(run.text));
    if (values.every((value, index) => index === 0 || value > (values[index - 1] ?? 0))) {
      for (const run of sorted) drop.add(run);
    }
  }
  return drop.size === 0 ? runs : runs.filter((run) => !drop.has(run));
}
