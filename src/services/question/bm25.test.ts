import { describe, expect, it } from 'vitest';
import { analyze, Bm25Index } from './bm25.js';

describe('analyze', () => {
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
});

describe('Bm25Index', () => {
  const passages = [
    'Dps binds supercoiled DNA and compacts it quickly.',
    'Relaxed DNA compacts slowly, and linear DNA not at all.',
    'The microscope used a 561 nm laser.',
  ];
  const index = new Bm25Index(passages);

  it('scores passages holding rarer query terms higher', () => {
    const scores = index.score('How quickly does supercoiled DNA compact?');
    expect(scores[0]).toBeGreaterThan(scores[1] as number);
    expect(scores[1]).toBeGreaterThan(0);
    expect(scores[2]).toBe(0);
  });

  it('gives zeros when no query term occurs', () => {
    expect([...index.score('what is the weather')]).toEqual([0, 0, 0]);
  });
});
