import { describe, expect, it } from 'vitest';
import { fuseScores } from './fusion.js';

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
});
