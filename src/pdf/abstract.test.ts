import { describe, expect, it } from 'vitest';
import { readAbstract } from './abstract.js';
import type { TextBlock } from './layout-types.js';

let top = 0;
const block = (kind: TextBlock['kind'], text: string, level?: number, page = 1): TextBlock => {
  top += 20;
  return {
    kind,
    text,
    page,
    pages: [page],
    top,
    bottom: top + 10,
    x0: 72,
    x1: 540,
    ...(level ? { level } : {}),
  };
};
const prose = (words: string) =>
  `${words} We show that the method reads every paper the way its authors printed it, and measure how often it does so on real documents.`;

describe('readAbstract', () => {
  it('reads the paragraphs under an Abstract heading up to a labelled part that is not the abstract', () => {
    const blocks = [
      block('heading', 'A Title', 1),
      block('paragraph', 'Ada Lovelace, Charles Babbage'),
      block('heading', 'ABSTRACT', 2),
      block('paragraph', prose('First paragraph.')),
      block('paragraph', `continued across a column break. ${prose('Second.')}`),
      block(
        'paragraph',
        'IMPORTANCE Acinetobacter lwoffii is often a harmless commensal but also a pathogen.',
      ),
    ];
    expect(readAbstract(blocks)).toBe(
      `${prose('First paragraph.')} continued across a column break. ${prose('Second.')}`,
    );
  });

  it('stops at a footnote and drops a keywords line run into the last paragraph', () => {
    const blocks = [
      block('heading', 'Abstract', 2),
      block(
        'paragraph',
        `${prose('Only paragraph.')} Keywords: Diabetes, Variants of uncertain significance`,
      ),
      block('paragraph', '∗Equal contribution. †Corresponding author.'),
    ];
    expect(readAbstract(blocks)).toBe(prose('Only paragraph.'));
  });

  it('reads an inline "Abstract." label', () => {
    const blocks = [block('heading', 'A Title', 1), block('paragraph', `Abstract. ${prose('Inline.')}`)];
    expect(readAbstract(blocks)).toBe(prose('Inline.'));
  });

  it('reads REVTeX\u2019s unlabelled abstract before "I. INTRODUCTION", and nothing for an editorial', () => {
    const long = `${prose('Theoretical description of anisotropic systems is hard.')} ${prose('Again.')} ${prose('And again.')}`;
    const revtex = [
      block('heading', 'Quantum Criticality on a Bethe Lattice', 1),
      block('paragraph', 'James M. Murray,1 Adrian Del Maestro,1, 2 1Institute for Quantum Matter'),
      block('paragraph', long),
      block('heading', 'I. INTRODUCTION', 2),
    ];
    expect(readAbstract(revtex)).toBe(long);
    const editorial = [
      block('paragraph', 'DOI: 10.1111/imm.13445'),
      block('heading', 'COVID-19 vaccination and treatment in vulnerable populations', 1),
      block('paragraph', long),
      block('heading', 'REFERENCES', 2),
    ];
    expect(readAbstract(editorial)).toBeUndefined();
  });

  it('takes "Summary" as the abstract only before the sections begin', () => {
    const blocks = [
      block('heading', 'A Title', 1),
      block('heading', '1 Introduction', 2),
      block('paragraph', prose('Body.')),
      block('heading', 'Summary', 2),
      block('paragraph', prose('A closing summary.')),
    ];
    expect(readAbstract(blocks)).toBeUndefined();
  });
});
