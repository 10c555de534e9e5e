import { describe, expect, it } from 'vitest';
import { rankSentences, splitSentences } from './sentences.js';

describe('splitSentences', () => {
  it('splits at sentence ends but not after abbreviations or initials, and drops headings and figures', () => {
    const text =
      '# Results\nRev1 mutants were sensitive (Fig. 5C). Smith et al. showed this before. J. Doe agreed.\n\n![Figure 1](http://x/y.png)\nA second paragraph\ncontinues here.';
    expect(splitSentences(text)).toEqual([
      'Rev1 mutants were sensitive (Fig. 5C).',
      'Smith et al. showed this before.',
      'J. Doe agreed.',
      'A second paragraph continues here.',
    ]);
  });
});

describe('rankSentences', () => {
  it('ranks the sentence with the question terms first and drops unrelated ones', () => {
    const ranked = rankSentences('Which antibiotics did A. lwoffii evolve resistance to?', [
      { text: 'The weather was mild during sampling of all the strains we studied.', origin: 1 },
      {
        text: 'A. baumannii evolved resistance to meropenem, but A. lwoffii only evolved resistance to ciprofloxacin.',
        origin: 2,
      },
      { text: 'Antibiotics are widely used in hospitals around the world today.', origin: 3 },
    ]);
    expect(ranked.map((entry) => entry.origin)).toEqual([2, 3]);
  });
});
