import { describe, expect, it } from 'vitest';
import { type ChunkScoring, defaultChunkScoring, scoreChunks, sectionKind } from './chunk-scoring.js';
import type { Passage } from './passages.js';

/** Every lever off: a chunk scores as its best passage. */
const plain: ChunkScoring = {
  neighbourWeight: 0,
  secondWeight: 0,
  sectionPriors: {},
  excludeReferences: false,
};
const scoring = (overrides: Partial<ChunkScoring>): ChunkScoring => ({ ...plain, ...overrides });

/** Chunk indexes, best first. */
function order(passages: Passage[], scores: number[], options: ChunkScoring = plain): number[] {
  return [...scoreChunks(passages, Float32Array.from(scores), options).entries()]
    .sort(([chunkA, a], [chunkB, b]) => b.score - a.score || chunkA - chunkB)
    .map(([chunk]) => chunk);
}

describe('sectionKind', () => {
  it('reads numbered, nested and run-in headings', () => {
    expect(sectionKind('1 Introduction')).toBe('front');
    expect(sectionKind('Abstract')).toBe('front');
    expect(sectionKind('2 Related Work')).toBe('background');
    expect(sectionKind('3.2 Implementation and Results Analysis')).toBe('results');
    // Nested: the subsection says more than its section; a subsection naming no kind takes the section's.
    expect(sectionKind('4 Experiments and Results — Dataset Description')).toBe('methods');
    expect(sectionKind('4 Experiments — 4.2 Baselines')).toBe('results');
    expect(sectionKind('IV. DISCUSSION')).toBe('results');
    expect(sectionKind('Materials and methods')).toBe('methods');
    expect(sectionKind('5 Conclusion and Future Work')).toBe('closing');
    expect(sectionKind('References')).toBe('references');
    expect(sectionKind('Acknowledgments')).toBe('back');
    expect(sectionKind('Pair-Wise Attentive Reader')).toBe('other');
    expect(sectionKind(undefined)).toBe('other');
  });

  it('does not take a section about references for the reference list', () => {
    expect(sectionKind('3 Resolving references in dialogue')).not.toBe('references');
  });
});

describe('scoreChunks', () => {
  const passages: Passage[] = [
    { chunk: 0, text: '1 Introduction\nWe study how Dps condenses DNA.' },
    { chunk: 1, text: '3 Results\nCondensation needs the lysine tails.' },
    { chunk: 1, text: '3 Results\nSupercoiled DNA condensed fastest.' },
    { chunk: 2, text: 'References\nSmith J. 2020. Dps and DNA. Nature.' },
  ];

  it('scores a chunk as its best passage when every lever is off', () => {
    const chunks = scoreChunks(passages, Float32Array.from([0.9, 0.2, 0.8, 0.1]), plain);
    expect(chunks.get(0)).toEqual({ score: expect.closeTo(0.9, 5), passage: 0 });
    expect(chunks.get(1)).toEqual({ score: expect.closeTo(0.8, 5), passage: 2 });
    expect(order(passages, [0.9, 0.2, 0.8, 0.1])).toEqual([0, 1, 2]);
  });

  it('section priors lower the introduction below a results passage that scored a little less', () => {
    const priors = scoring({ sectionPriors: { front: 0.85 } });
    expect(order(passages, [0.9, 0.2, 0.8, 0.1], priors)).toEqual([1, 0, 2]);
    // A clear lead survives the prior.
    expect(order(passages, [0.9, 0.2, 0.5, 0.1], priors)).toEqual([0, 1, 2]);
  });

  it('never ranks the reference list above other text, unless the document is nothing else', () => {
    const excluded = scoring({ excludeReferences: true });
    expect(order(passages, [0.1, 0.2, 0.3, 1], excluded)).toEqual([1, 0, 2]);
    expect(order(passages, [0.1, 0.2, 0.3, 1])).toEqual([2, 1, 0]);
    const onlyReferences: Passage[] = [
      { chunk: 0, text: 'References\nA. 2019.' },
      { chunk: 1, text: 'References\nB. 2020.' },
    ];
    expect(order(onlyReferences, [0.2, 0.7], excluded)).toEqual([1, 0]);
  });

  it('a chunk that mixes body text and references is scored by its body text', () => {
    const mixed: Passage[] = [
      { chunk: 0, text: '5 Conclusion\nDps bridges DNA strands.' },
      { chunk: 0, text: 'References\nSmith J. 2020.' },
      { chunk: 1, text: '3 Results\nBridging needs lysines.' },
    ];
    const chunks = scoreChunks(
      mixed,
      Float32Array.from([0.3, 0.9, 0.5]),
      scoring({ excludeReferences: true }),
    );
    expect(chunks.get(0)).toEqual({ score: expect.closeTo(0.3, 5), passage: 0 });
  });

  it('by default lowers the introduction a little and never ranks the references', () => {
    expect(order(passages, [0.9, 0.2, 0.8, 1], defaultChunkScoring)).toEqual([1, 0, 2]);
  });

  it('passage windows add the better neighbour of the same chunk, never one across a chunk bound', () => {
    const window = scoring({ neighbourWeight: 0.5 });
    const chunks = scoreChunks(passages, Float32Array.from([0.6, 0.5, 0.4, 0.9]), window);
    expect(chunks.get(1)?.score).toBeCloseTo(0.5 + 0.5 * 0.4, 5);
    // Passage 0 is alone in its chunk: the 0.5 of the next chunk does not count.
    expect(chunks.get(0)?.score).toBeCloseTo(0.6, 5);
  });

  it('chunk aggregation adds a share of the second-best passage', () => {
    const aggregate = scoring({ secondWeight: 0.5 });
    expect(order(passages, [0.7, 0.5, 0.6, 0], aggregate)).toEqual([1, 0, 2]);
    expect(order(passages, [0.7, 0.5, 0.6, 0])).toEqual([0, 1, 2]);
  });
});
