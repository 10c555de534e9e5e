import { describe, expect, it } from 'vitest';
import { anchorOf, type ChunkLine } from './page-anchors.js';

// A 600 × 800 pt page; two lines of the left column and one on the next page.
const lines: ChunkLine[] = [
  [1, 60, 100, 280, 110, 0, 50],
  [1, 60, 112, 270, 122, 51, 100],
  [2, 60, 90, 280, 100, 101, 150],
];
const sizes: Array<[number, number]> = [
  [600, 800],
  [600, 800],
];

describe('anchorOf', () => {
  it('merges whole lines of one column into one box per page, in fractions of the page', () => {
    const anchor = anchorOf(lines, sizes, 0, 150);
    expect(anchor?.pages).toEqual([1, 2]);
    expect(anchor?.boxes).toEqual([
      { page: 1, x0: 0.1, y0: 0.125, x1: 0.4667, y1: 0.1525 },
      { page: 2, x0: 0.1, y0: 0.1125, x1: 0.4667, y1: 0.125 },
    ]);
  });

  it('gives a line cut by the range its share of the width', () => {
    const anchor = anchorOf(lines, sizes, 25, 75);
    expect(anchor?.pages).toEqual([1]);
    const [first, second] = anchor?.boxes ?? [];
    // From the middle of line 1 (170 pt, less one character of slack) to the middle of line 2.
    expect(first?.x0).toBeCloseTo((170 - 4.4) / 600, 3);
    expect(first?.x1).toBeCloseTo(280 / 600, 3);
    expect(second?.x0).toBeCloseTo(60 / 600, 3);
    expect(second?.x1).toBeLessThan(270 / 600);
  });

  it('is null without lines, page sizes or a range inside them', () => {
    expect(anchorOf(undefined, sizes, 0, 10)).toBeNull();
    expect(anchorOf(lines, undefined, 0, 10)).toBeNull();
    expect(anchorOf(lines, sizes, 200, 210)).toBeNull();
    expect(anchorOf(lines, sizes, 10, 10)).toBeNull();
  });
});
