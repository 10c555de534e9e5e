import type { TextLine } from './layout-types.js';

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
      if (key.length === 0) continue;
      let set = pagesByKey.get(key);
      if (!set) {
        set = new Set();
        pagesByKey.set(key, set);
      }
      set.add(pageIndex);
    }
  });
  // Journals alternate left/right headers, so a quarter of the pages is enough (and two pages at least).
  const minimumPages = Math.max(2, Math.ceil(pages.length * 0.25));
  const kept: TextLine[][] = [];
  const removed: TextLine[][] = [];
  pages.forEach(({ lines, height }) => {
    const keep: TextLine[] = [];
    const drop: TextLine[] = [];
    for (const line of lines) {
      const running =
        inMargin(line, height) &&
        (isPageNumber(line.text) || (pagesByKey.get(runningKey(line.text))?.size ?? 0) >= minimumPages);
      (running ? drop : keep).push(line);
    }
    kept.push(keep);
    removed.push(drop);
  });
  return { kept, removed };
}

function inMargin(line: TextLine, height: number): boolean {
  return line.bottom <= height * marginShare || line.top >= height * (1 - marginShare);
}

function runningKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/\d+/g, '#')
    .replace(/[^\p{L}#]+/gu, '');
}

/** "12", "- 12 -", "Page 12", "12 of 40", "iv". */
function isPageNumber(text: string): boolean {
  const trimmed = text.trim().toLowerCase();
  return (
    /^[-–—(]?\s*\d{1,4}\s*[-–—)]?$/.test(trimmed) ||
    /^page\s+\d{1,4}(\s+of\s+\d{1,4})?$/.test(trimmed) ||
    /^\d{1,4}\s+of\s+\d{1,4}$/.test(trimmed) ||
    /^[ivxlc]{1,6}$/.test(trimmed)
  );
}
