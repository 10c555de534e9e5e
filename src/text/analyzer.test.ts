import { describe, expect, it } from 'vitest';
import { analyze, indexTerms, isStopword, stem, termOf, words } from './analyzer.js';

describe('analyze (in-memory ranking)', () => {
  it('lower-cases, folds accents, drops stop words, stems (Porter), keeps tokens with digits whole', () => {
    expect(analyze('The Mutants of Rev1 and the A456V variant studies — café')).toEqual([
      'mutant',
      'rev1',
      'a456v',
      'variant',
      'studi',
      'cafe',
    ]);
  });

  it('drops possessives and one-letter words, keeps a lone digit, spells ligatures out', () => {
    expect(analyze("The cell's ﬁrst 3 x rounds don't count")).toEqual([
      'cell',
      'first',
      '3',
      'round',
      'count',
    ]);
  });

  it('drops the words of asking only when told', () => {
    expect(analyze('the role of Dps')).toEqual(['role', 'dp']);
    expect(analyze('the role of Dps', { askingWords: true })).toEqual(['dp']);
    expect(isStopword('role')).toBe(false);
    expect(isStopword('role', { askingWords: true })).toBe(true);
  });

  it('stems "resistant" and "resistance" alike, as the index does', () => {
    expect(termOf('resistant')).toBe(termOf('resistance'));
    expect(indexTerms('resistant resistance')).toEqual(['resist', 'resist']);
  });

  it('splits hyphenated words and folds compatibility characters', () => {
    expect(words('Rev1-DTD Ångström')).toEqual(['rev1', 'dtd', 'angstrom']);
  });
});

describe('indexTerms (FTS5 porter unicode61 remove_diacritics 2)', () => {
  it('keeps every token, stop words too, and stems only tokens of 3 to 64 characters', () => {
    expect(indexTerms('The Mutants of Rev1-DTD, naïve p53s')).toEqual([
      'the',
      'mutant',
      'of',
      'rev1',
      'dtd',
      'naiv',
      'p53',
    ]);
    expect(stem('as')).toBe('as');
    expect(stem(`${'a'.repeat(65)}s`)).toBe(`${'a'.repeat(65)}s`);
  });

  it('folds diacritics off Latin letters only', () => {
    expect(indexTerms('Ωμέγα café')).toEqual(['ωμέγα', 'cafe']);
  });
});
