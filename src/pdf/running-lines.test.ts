import { describe, expect, it } from 'vitest';
import type { TextLine, TextRun } from './layout-types.js';
import { removeLineNumbers, removeRunningLines } from './running-lines.js';

function line(text: string, page: number, bottom: number, x0 = 72): TextLine {
  return {
    text,
    x0,
    x1: x0 + 6 * text.length,
    top: bottom - 10,
    bottom,
    size: 10,
    font: 'f',
    uniformFont: true,
    page,
  };
}

describe('removeRunningLines', () => {
  const height = 792;
  const pages = [1, 2, 3, 4, 5, 6].map((page) => ({
    height,
    lines: [
      line(page % 2 ? 'Journal of Examples, 2024, Vol. 7' : 'Doe et al.', page, 40),
      line(`Body text of page ${page} that is not repeated anywhere else.`, page, 400),
      // A table whose header row opens two of the six pages is not a running header.
      ...(page === 1 || page === 4 ? [line('Model BLEU Recall', page, 80, 300)] : []),
      line(String(100 + page), page, 760, 300),
    ],
  }));
  pages[2]?.lines.push(line('(14)', 3, 770, 500));

  it('drops headers repeated in the margins and page numbers, keeps body text and equation numbers', () => {
    const { kept, removed } = removeRunningLines(pages);
    expect(kept[0]?.map((each) => each.text)).toEqual([
      'Body text of page 1 that is not repeated anywhere else.',
      'Model BLEU Recall',
    ]);
    expect(removed[1]?.map((each) => each.text)).toEqual(['Doe et al.', '102']);
    expect(kept[2]?.map((each) => each.text)).toContain('(14)');
  });

  it('drops a header row that carries the page number, whatever its title', () => {
    const thesis = [1, 2, 3].map((page) => ({
      height,
      lines: [
        line(String(page + 7), page, 80),
        line(`Chapter title ${page}`, page, 80, 360),
        line('Body', page, 300),
      ],
    }));
    expect(
      removeRunningLines(thesis)
        .kept.flat()
        .map((each) => each.text),
    ).toEqual(['Body', 'Body', 'Body']);
  });
});

describe('removeLineNumbers', () => {
  const run = (text: string, x: number, y: number): TextRun => ({
    text,
    x,
    y,
    width: 6 * text.length,
    size: 10,
    font: 'f',
  });

  it('drops a column of increasing integers and keeps numbers inside the text', () => {
    const runs = [
      ...[5, 10, 15, 20, 25].map((value, index) => run(String(value), 300, 100 + index * 60)),
      run('The 42 samples were', 72, 100),
      run('12', 72, 160),
    ];
    expect(removeLineNumbers(runs).map((each) => each.text)).toEqual(['The 42 samples were', '12']);
  });
});
