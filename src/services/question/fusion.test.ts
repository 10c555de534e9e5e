import { describe, expect, it } from 'vitest';
import { candidatePassages, fuseCandidates, fuseScores } from './fusion.js';

const dense = Float32Array.from([0.2, 0.6, 0.4]);
const bm25 = Float32Array.from([9, 0, 3]);

describe('fuseScores', () => {
  it('returns one list alone in dense and bm25 modes', () => {
    expect(fuseScores(dense, bm25, 'dense')).toBe(dense);
    expect(fuseScores(dense, bm25, 'bm25')).toBe(bm25);
  });

  it('combines min-max normalised scores with the dense weight (convex)', () => {
    const fused = fuseScores(dense, bm25, 'hybrid', { method: 'convex', weight: 0.25 });
    // dense → [0, 1, 0.5]; bm25 → [1, 0, 1/3]
    expect([...fused].map((value) => value.toFixed(3))).toEqual(['0.750', '0.250', '0.375']);
  });

  it('lets dense decide when BM25 matched nothing', () => {
    const fused = fuseScores(dense, new Float32Array(3), 'hybrid', { method: 'convex', weight: 0.5 });
    expect([...fused].map((value) => value.toFixed(2))).toEqual(['0.00', '0.50', '0.25']);
  });

  it('adds weighted reciprocal ranks (rrf)', () => {
    const fused = fuseScores(dense, bm25, 'hybrid', { method: 'rrf', weight: 0.5 });
    // ranks: dense [3, 1, 2], bm25 [1, 3, 2]
    expect(fused[0]).toBeCloseTo(0.5 / 63 + 0.5 / 61, 6);
    expect(fused[2]).toBeCloseTo(1 / 62, 6);
  });

  it('picks BM25’s best passages as a first question’s candidates, then unmatched ones in order', () => {
    expect(candidatePassages(Float32Array.from([0, 2, 0, 5, 2]), 3)).toEqual([3, 1, 4]);
    expect(candidatePassages(Float32Array.from([0, 1, 0, 0]), 3)).toEqual([1, 0, 2]);
    expect(candidatePassages(Float32Array.from([1]), 5)).toEqual([0]);
    // Two more spread over the document (at ¼ and ¾ of it, or the next passage when chosen already).
    expect(candidatePassages(Float32Array.from([0, 0, 3, 0, 0, 0, 1, 0]), 2, 2)).toEqual([2, 6, 3, 7]);
    expect(candidatePassages(Float32Array.from([0, 5, 0]), 1, 9)).toEqual([1, 0, 2]);
  });

  it('fuses with dense scores of the candidates only, and equals convex fusion when all are candidates', () => {
    const all = fuseCandidates(dense, bm25, [0, 1, 2], { method: 'convex', weight: 0.25 });
    const convex = fuseScores(dense, bm25, 'hybrid', { method: 'convex', weight: 0.25 });
    expect([...all]).toEqual([...convex]);
    const fourDense = Float32Array.from([0.9, 0.1, 0.5, 0.95]);
    const fourBm25 = Float32Array.from([4, 8, 0, 1]);
    const some = fuseCandidates(fourDense, fourBm25, [1, 0], { method: 'convex', weight: 0.6 });
    // dense over the candidates: 0.9 → 1, 0.1 → 0; bm25 over all: [0.5, 1, 0, 0.125]
    expect([...some].map((value) => value.toFixed(3))).toEqual(['0.800', '0.400', '0.000', '0.050']);
    // Passage 3's high cosine is unknown (not a candidate): it stays below both candidates.
    expect(some[3]).toBeLessThan(Math.min(some[0] as number, some[1] as number));
  });
});
