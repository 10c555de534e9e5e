import { describe, expect, it } from 'vitest';
import { frontMatterOf } from './front-matter.js';
import type { TextLine } from './layout-types.js';
import { printedYear } from './printed-year.js';

/** Page 1 as lines top-down (`top` in points of a 792-point page), the first line the title. */
function pageOf(texts: Array<[string, number]>): TextLine[] {
  return texts.map(([text, top]) => ({
    text,
    x0: 72,
    x1: 540,
    top,
    bottom: top + 10,
    size: 10,
    font: 'F1',
    uniformFont: true,
    page: 1,
  }));
}

const yearOf = (texts: Array<[string, number]>, extra: { rotated?: string[]; arxivId?: string } = {}) => {
  const firstPage = pageOf(texts);
  return printedYear({
    rotated: extra.rotated ?? [],
    front: frontMatterOf(firstPage, 792, firstPage.slice(0, 1)),
    firstPage,
    arxivId: extra.arxivId,
  });
};

const prose = 'We study how the documents were read and what the readers expected of them in this work.';

describe('printedYear', () => {
  it('reads a journal line, a venue line and a copyright line', () => {
    expect(
      yearOf([
        ['A Title Of A Paper', 100],
        ['Nucleic Acids Research, 2024, 52, 4456–4465', 20],
      ]),
    ).toBe(2024);
    expect(
      yearOf([
        ['A Title Of A Paper', 100],
        ['Proceedings of the 40th International Conference on Machine Learning, PMLR 202, 2023.', 760],
      ]),
    ).toBe(2023);
    expect(
      yearOf([
        ['A Title Of A Paper', 100],
        [prose, 300],
        ['© 2019 The Authors', 700],
      ]),
    ).toBe(2019);
  });

  it('takes the arXiv stamp, else the year of a new- or old-style arXiv id', () => {
    expect(
      yearOf([['A Title Of A Paper', 100]], { rotated: ['arXiv:2306.12345v1 [cs.CL] 5 Jun 2023'] }),
    ).toBe(2023);
    expect(yearOf([['A Title Of A Paper', 100]], { arxivId: '2304.02623v1' })).toBe(2023);
    expect(yearOf([['A Title Of A Paper', 100]], { arxivId: 'hep-th/9901001' })).toBe(1999);
  });

  it('reads no date from the body text, and none at all when nothing is printed', () => {
    expect(
      yearOf([
        ['A Title Of A Paper', 100],
        [`${prose} In January 2020 it began.`, 300],
      ]),
    ).toBeUndefined();
    expect(yearOf([])).toBeUndefined();
  });
});
