import type { TextLine } from './layout-types.js';

const cell = 10;

/**
 * Whether a page has room for a figure: an empty square of `side` points inside the area its text
 * spans. A page filled with text has none, so its operator list (about as costly as its text) need
 * not be built to look for images. Text lines are marked on a 10-point grid; the largest empty
 * square is found with the classic dynamic programme over the grid.
 */
export function hasRoomForFigure(
  lines: TextLine[],
  page: { width: number; height: number },
  side: number,
): boolean {
  if (lines.length === 0) return true;
  const left = Math.max(0, Math.min(...lines.map((line) => line.x0)));
  const right = Math.min(page.width, Math.max(...lines.map((line) => line.x1)));
  const top = Math.max(0, Math.min(...lines.map((line) => line.top)));
  const bottom = Math.min(page.height, Math.max(...lines.map((line) => line.bottom)));
  const columns = Math.ceil((right - left) / cell);
  const rows = Math.ceil((bottom - top) / cell);
  if (columns <= 0 || rows <= 0) return true;
  const used = new Uint8Array(columns * rows);
  for (const line of lines) {
    const fromColumn = Math.max(0, Math.floor((line.x0 - left) / cell));
    const toColumn = Math.min(columns - 1, Math.floor((line.x1 - left) / cell));
    const fromRow = Math.max(0, Math.floor((line.top - top) / cell));
    const toRow = Math.min(rows - 1, Math.floor((line.bottom - top) / cell));
    for (let row = fromRow; row <= toRow; row++) {
      used.fill(1, row * columns + fromColumn, row * columns + toColumn + 1);
    }
  }
  const needed = Math.max(1, Math.floor(side / cell));
  let previous = new Uint16Array(columns);
  for (let row = 0; row < rows; row++) {
    const current = new Uint16Array(columns);
    for (let column = 0; column < columns; column++) {
      if (used[row * columns + column]) continue;
      const square =
        column === 0
          ? 1
          : 1 + Math.min(previous[column] ?? 0, previous[column - 1] ?? 0, current[column - 1] ?? 0);
      current[column] = square;
      if (square >= needed) return true;
    }
    previous = current;
  }
  return false;
}
