import { describe, expect, it } from 'vitest';
import { contentTerms, deriveKeywords } from '../text/keywords.js';
import { rankSentences, splitSentences } from '../text/sentences.js';
import { isBibliographic, withoutBibliography } from './compose.js';

describe('deriveKeywords', () => {
  it('keeps the distinctive content words of a LitQA2 question, in question order', () => {
    expect(
      deriveKeywords(
        'Acinetobacter lwoffii has been evolved in the lab to be resistant to which of these antibiotics?',
      ),
    ).toEqual(['Acinetobacter', 'lwoffii', 'evolved', 'lab', 'resistant', 'antibiotics']);
    expect(
      deriveKeywords(
        'What is the structural change in the protein conformational ensemble from the A456V mutation in Human Glucokinase that accelerates glucose binding?',
      ),
    ).toEqual(['structural', 'conformational', 'A456V', 'Human', 'Glucokinase', 'accelerates']);
  });

  it('takes no "word" longer than 64 characters (pasted data)', () => {
    expect(deriveKeywords(`${'a'.repeat(65)} Dps condensation`)).toEqual(['Dps', 'condensation']);
    expect(deriveKeywords('a'.repeat(1_000_000))).toEqual([]);
    expect(deriveKeywords('b'.repeat(64))).toEqual(['b'.repeat(64)]);
  });

  it('gives nothing for a question of stopwords only', () => {
    expect(deriveKeywords('What is it?')).toEqual([]);
  });
});

describe('contentTerms', () => {
  it('joins plural and singular but leaves identifiers with digits alone', () => {
    expect(contentTerms('mutations')).toEqual(contentTerms('mutation'));
    expect(contentTerms('resistant')).toEqual(contentTerms('resistance'));
    expect(contentTerms('A456V p53s')).toEqual(['a456v', 'p53s']);
    expect(contentTerms('The Rev1 subunits of the protein')).toEqual(['rev1', 'subunit', 'protein']);
  });

  it("takes inflections off, not Porter's wider classes", () => {
    expect(contentTerms('studies')).toEqual([]);
    expect(contentTerms('general generation')).toEqual(['general', 'generation']);
    expect(contentTerms('operations operative')).toEqual(['operation', 'operative']);
  });

  it('drops the words of asking as well as function words', () => {
    expect(contentTerms('Describe the evidence for the role of Dps in studies of DNA')).toEqual([
      'dps',
      'dna',
    ]);
  });
});

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

describe('bibliography entries', () => {
  it('are told apart from prose', () => {
    expect(
      isBibliographic(
        'Heredia VV, Thomson J, Nettleton D, Sun S. Glucose‐induced conformational changes in glucokinase mediate allosteric regulation: transient kinetic analysis.',
      ),
    ).toBe(true);
    expect(isBibliographic('Cell Rep. 2021;35:109967.')).toBe(true);
    expect(
      isBibliographic(
        'By examining enzyme kinetics, Heredia et al. found that p.T65I, p.Y215A and p.A456V mainly accelerate glucose binding.',
      ),
    ).toBe(false);
    expect(withoutBibliography('Results text.\n\n## References\n1. Smith J. A paper.')).toBe(
      'Results text.\n\n',
    );
  });
});
