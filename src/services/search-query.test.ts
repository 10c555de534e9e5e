import { describe, expect, it } from 'vitest';
import { maxSearchWords, parseSearchText, toClauses } from './search-query.js';

describe('parseSearchText', () => {
  it('splits words, drops function words and keeps hyphenated and apostrophe words whole', () => {
    expect(parseSearchText('What are the off-target effects of CRISPR-Cas9 in Alzheimer’s disease?')).toEqual(
      {
        phrases: [],
        words: ['off-target', 'effects', 'crispr-cas9', "alzheimer's", 'disease'],
        omitted: 0,
      },
    );
  });

  it('reads phrases in plain, escaped and typographic quotes', () => {
    expect(parseSearchText('\\"wireless charging\\" coil')).toEqual({
      phrases: ['wireless charging'],
      words: ['coil'],
      omitted: 0,
    });
    expect(parseSearchText('“Attention is all you need” transformer')).toEqual({
      phrases: ['attention is all you need'],
      words: ['transformer'],
      omitted: 0,
    });
    expect(parseSearchText('"a "b" c"')).toEqual({ phrases: ['a', 'c'], words: ['b'], omitted: 0 });
  });

  it('keeps function words when nothing else is left, and ignores an unbalanced quote', () => {
    expect(parseSearchText('To be or not to be')).toEqual({
      phrases: [],
      words: ['to', 'be', 'or', 'not'],
      omitted: 0,
    });
    expect(parseSearchText('"unbalanced phrase')).toEqual({
      phrases: [],
      words: ['unbalanced', 'phrase'],
      omitted: 0,
    });
  });

  it('ignores punctuation and query-language syntax, de-duplicates and caps the clause count', () => {
    expect(parseSearchText('title:(NEAR a*) AND (b OR c) -- ;')).toEqual({
      phrases: [],
      words: ['title', 'near', 'b', 'c'],
      omitted: 0,
    });
    expect(parseSearchText('Graph graph GRAPH')).toEqual({ phrases: [], words: ['graph'], omitted: 0 });
    const many = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    expect(parseSearchText(many).words).toHaveLength(maxSearchWords);
    expect(parseSearchText('')).toEqual({ phrases: [], words: [], omitted: 0 });
    expect(parseSearchText(' -- "" ')).toEqual({ phrases: [], words: [], omitted: 0 });
  });
});

describe('parseSearchText word budget (issue 13: a huge query made a slow search)', () => {
  it('cuts a quoted run of 950 words to the first maxSearchWords words and counts the rest', () => {
    const parsed = parseSearchText(`"${'a '.repeat(950)}"`);
    expect(parsed.phrases).toEqual([Array(maxSearchWords).fill('a').join(' ')]);
    expect(parsed.words).toEqual([]);
    expect(parsed.omitted).toBe(950 - maxSearchWords);
  });

  it('counts every phrase word against one budget per parameter, phrases first, then free words', () => {
    const phrase = (start: number) => Array.from({ length: 12 }, (_, index) => `p${start + index}`).join(' ');
    const words = Array.from({ length: 20 }, (_, index) => `w${index}`).join(' ');
    const parsed = parseSearchText(`"${phrase(0)}" "${phrase(12)}" "${phrase(24)}" ${words}`);
    expect(parsed.phrases).toEqual([phrase(0), phrase(12), 'p24 p25 p26 p27 p28 p29 p30 p31']);
    expect(parsed.words).toEqual([]);
    expect(parsed.omitted).toBe(4 + 20);
    const mixed = parseSearchText(`"${phrase(0)}" ${words} w20 w21 w22`);
    expect(mixed.words).toEqual(Array.from({ length: 20 }, (_, index) => `w${index}`));
    expect(mixed.omitted).toBe(3);
    // Repeated words are one word: 950 times "a" is one search word, nothing left out.
    expect(parseSearchText('a '.repeat(950))).toEqual({ phrases: [], words: ['a'], omitted: 0 });
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
