import { describe, expect, it } from 'vitest';
import { maxClauses, parseSearchText, toClauses } from './search-query.js';

describe('parseSearchText', () => {
  it('splits words, drops function words and keeps hyphenated and apostrophe words whole', () => {
    expect(parseSearchText('What are the off-target effects of CRISPR-Cas9 in Alzheimer’s disease?')).toEqual(
      {
        phrases: [],
        words: ['off-target', 'effects', 'crispr-cas9', "alzheimer's", 'disease'],
      },
    );
  });

  it('reads phrases in plain, escaped and typographic quotes', () => {
    expect(parseSearchText('\\"wireless charging\\" coil')).toEqual({
      phrases: ['wireless charging'],
      words: ['coil'],
    });
    expect(parseSearchText('“Attention is all you need” transformer')).toEqual({
      phrases: ['attention is all you need'],
      words: ['transformer'],
    });
    expect(parseSearchText('"a "b" c"')).toEqual({ phrases: ['a', 'c'], words: ['b'] });
  });

  it('keeps function words when nothing else is left, and ignores an unbalanced quote', () => {
    expect(parseSearchText('To be or not to be')).toEqual({ phrases: [], words: ['to', 'be', 'or', 'not'] });
    expect(parseSearchText('"unbalanced phrase')).toEqual({ phrases: [], words: ['unbalanced', 'phrase'] });
  });

  it('ignores punctuation and query-language syntax, de-duplicates and caps the clause count', () => {
    expect(parseSearchText('title:(NEAR a*) AND (b OR c) -- ;')).toEqual({
      phrases: [],
      words: ['title', 'near', 'b', 'c'],
    });
    expect(parseSearchText('Graph graph GRAPH')).toEqual({ phrases: [], words: ['graph'] });
    const many = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    expect(parseSearchText(many).words).toHaveLength(maxClauses);
    expect(parseSearchText('')).toEqual({ phrases: [], words: [] });
    expect(parseSearchText(' -- "" ')).toEqual({ phrases: [], words: [] });
  });
});

describe('toClauses', () => {
  it('makes a one-word phrase a term and keeps longer phrases as phrases', () => {
    expect(toClauses({ phrases: ['bert', 'neural machine translation'], words: ['survey'] })).toEqual({
      phrases: [
        { kind: 'term', text: 'bert' },
        { kind: 'phrase', text: 'neural machine translation' },
      ],
      words: [{ kind: 'term', text: 'survey' }],
    });
  });
});
