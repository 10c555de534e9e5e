import { describe, expect, it } from 'vitest';
import { CorpusGenerator } from '../../bench/lib/large-corpus.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';

// A small "real" base: each record has a word of its own, so the vocabulary grows with the records.
const own = (index: number) => `zeta${'abcdefghij'[index % 10]}${'klmnopqrst'[Math.floor(index / 10)]}`;
const base: Paper[] = Array.from({ length: 40 }, (_, index) => ({
  ...emptyPaper(`Parsing sentences number ${index}`),
  abstract: `Grammars describe languages. Record${'x'.repeat(index % 7)} studies parsers and ${['lattices', 'automata', 'treebanks', 'embeddings', 'alignments'][index % 5]} of kind ${own(index)}. Results improve.`,
  authors: [`Author ${index}`],
  year: 2020,
}));

const words = (paper: Paper) =>
  `${paper.title} ${paper.abstract ?? ''}`.toLowerCase().match(/\p{L}+/gu) ?? [];

describe('the bench corpus generator', () => {
  it('measures Heaps β on the base records and adds new words only to replicas, each word once', () => {
    const generator = new CorpusGenerator(base);
    const { types, beta } = generator.vocabulary;
    expect(types).toBeGreaterThan(10);
    expect(beta).toBeGreaterThan(0);
    expect(beta).toBeLessThan(1);
    const records = Array.from({ length: base.length * 6 }, () => generator.next());
    // The real records come first, untouched apart from their citation count.
    expect(records.slice(0, base.length).map((paper) => paper.abstract)).toEqual(base.map((p) => p.abstract));
    const seen = new Set(base.flatMap(words));
    // (Titles get a real ending appended; the new words go into abstracts.)
    const added = records
      .slice(base.length)
      .flatMap((paper) => words({ ...paper, title: '' }).filter((word) => !seen.has(word)));
    // Every new word is one the generator made, and no two records share one.
    expect(added.length).toBe(generator.vocabulary.novel);
    expect(new Set(added).size).toBe(added.length);
    // Five replicas bring types·(6^β − 1) new words by the curve (minus the few a short abstract cannot take).
    const expected = types * (6 ** beta - 1);
    expect(added.length).toBeGreaterThan(0.8 * expected);
    expect(added.length).toBeLessThan(1.2 * expected);
  });

  it('is deterministic: the same base gives the same records', () => {
    const a = new CorpusGenerator(base);
    const b = new CorpusGenerator(base);
    for (let index = 0; index < base.length * 3; index += 1) expect(a.next()).toEqual(b.next());
  });
});
