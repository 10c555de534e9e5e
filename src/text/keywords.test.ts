import { describe, expect, it } from 'vitest';
import { contentTerms, deriveKeywords } from './keywords.js';

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
