import { describe, expect, it } from 'vitest';
import type { TextLine } from './layout-types.js';
import { orderLines } from './reading-order.js';

function line(text: string, x0: number, x1: number, bottom: number, size = 10): TextLine {
  return { text, x0, x1, top: bottom - size, bottom, size, font: 'body', uniformFont: true, page: 1 };
}

/** A US Letter page: a full-width title, two columns of 30 lines, a full-width footnote. */
function twoColumnPage(): { lines: TextLine[]; expected: string[] } {
  const title = line('A title that spans both columns of the page', 150, 460, 80, 16);
  const left = Array.from({ length: 30 }, (_, index) => line(`left ${index}`, 54, 300, 130 + index * 12));
  // The right column's baselines are offset by 3 points from the left column's.
  const right = Array.from({ length: 30 }, (_, index) => line(`right ${index}`, 312, 558, 133 + index * 12));
  const footer = line('A footnote that runs under both columns, full width', 54, 558, 760, 8);
  return {
    lines: [title, ...left, ...right, footer],
    expected: [title, ...left, ...right, footer].map((each) => each.text),
  };
}

describe('orderLines', () => {
  it('reads a two-column page column by column, with spanning lines in place', () => {
    const { lines, expected } = twoColumnPage();
    expect(orderLines(lines).map((each) => each.text)).toEqual(expected);
  });

  it('does not depend on content-stream order (right column first, bottom-up, header last)', () => {
    const { lines, expected } = twoColumnPage();
    const scrambled = [
      ...lines.slice(31, 61).reverse(),
      ...lines.slice(1, 31).reverse(),
      lines[61],
      lines[0],
    ];
    expect(orderLines(scrambled as TextLine[]).map((each) => each.text)).toEqual(expected);
  });

  it('reads a single-column page top-down, with a short last line and an indented one', () => {
    const lines = [
      line('First line of a paragraph that is long', 72, 540, 100),
      line('second line', 72, 200, 112),
      line('New paragraph, indented', 90, 540, 124),
      line('and its end.', 72, 540, 136),
    ];
    expect(orderLines([...lines].reverse()).map((each) => each.text)).toEqual(lines.map((each) => each.text));
  });

  it('reads a full-width figure caption between two column bands in place', () => {
    const top = Array.from({ length: 10 }, (_, index) => [
      line(`a${index}`, 54, 300, 100 + index * 12),
      line(`b${index}`, 312, 558, 100 + index * 12),
    ]).flat();
    const caption = line('Figure 1: a caption as wide as the page', 54, 558, 240);
    const bottom = Array.from({ length: 10 }, (_, index) => [
      line(`c${index}`, 54, 300, 260 + index * 12),
      line(`d${index}`, 312, 558, 260 + index * 12),
    ]).flat();
    const order = orderLines([...bottom, caption, ...top]).map((each) => each.text);
    const expected = [
      ...Array.from({ length: 10 }, (_, index) => `a${index}`),
      ...Array.from({ length: 10 }, (_, index) => `b${index}`),
      'Figure 1: a caption as wide as the page',
      ...Array.from({ length: 10 }, (_, index) => `c${index}`),
      ...Array.from({ length: 10 }, (_, index) => `d${index}`),
    ];
    expect(order).toEqual(expected);
  });
});
