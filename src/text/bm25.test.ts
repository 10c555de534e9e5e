import { describe, expect, it } from 'vitest';
import { LoopTurns } from '../platform/loop-turns.js';
import { Bm25Index, defaultBm25 } from './bm25.js';

describe('Bm25Index', () => {
  const passages = [
    'Dps binds supercoiled DNA and compacts it quickly.',
    'Relaxed DNA compacts slowly, and linear DNA not at all.',
    'The microscope used a 561 nm laser.',
  ];
  const index = Bm25Index.of(passages);

  it('scores passages holding rarer query terms higher', () => {
    const scores = index.score('How quickly does supercoiled DNA compact?');
    expect(scores[0]).toBeGreaterThan(scores[1] as number);
    expect(scores[1]).toBeGreaterThan(0);
    expect(scores[2]).toBe(0);
  });

  it('gives zeros when no query term occurs', () => {
    expect([...index.score('what is the weather')]).toEqual([0, 0, 0]);
  });

  it('gives the classic BM25 figure (Lucene idf) for one term in one of three texts', () => {
    const single = Bm25Index.ofTerms([['dna', 'dna'], ['laser'], ['laser', 'nm']]);
    const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const norm = defaultBm25.k1 * (1 - defaultBm25.b + (defaultBm25.b * 2) / (5 / 3));
    expect(single.scoreTerms(['dna'])[0]).toBeCloseTo((idf * 2 * (defaultBm25.k1 + 1)) / (2 + norm), 5);
  });

  it('builds the same index in slices as at once', async () => {
    const built = await Bm25Index.build(passages, defaultBm25, new LoopTurns(0));
    expect([...built.score('supercoiled DNA compacts')]).toEqual([
      ...index.score('supercoiled DNA compacts'),
    ]);
  });
});
