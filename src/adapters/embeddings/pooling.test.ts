import { describe, expect, it } from 'vitest';
import { normalize, poolTokens } from './pooling.js';

// Two rows, sequence 3, hidden 2; row 0 has 2 real tokens (the third is padding), row 1 has 3.
const hidden = Float32Array.from([3, 0, 1, 4, 100, 100, 0, 1, 0, 2, 0, 6]);

describe('poolTokens', () => {
  it('averages only the real tokens, then normalises (mean)', () => {
    const [first, second] = poolTokens(hidden, [2, 3], 3, 2, 'mean');
    // row 0: mean (2, 2) → (0.707, 0.707); the padded (100, 100) must not count
    expect([...(first as Float32Array)].map((value) => value.toFixed(3))).toEqual(['0.707', '0.707']);
    // row 1: mean (0, 3) → (0, 1)
    expect([...(second as Float32Array)]).toEqual([0, 1]);
  });

  it('takes the first token (cls) and the per-dimension maximum (max)', () => {
    const [cls] = poolTokens(hidden, [2, 3], 3, 2, 'cls');
    expect([...(cls as Float32Array)]).toEqual([1, 0]);
    const [max] = poolTokens(hidden, [2, 3], 3, 2, 'max');
    expect([...(max as Float32Array)].map((value) => value.toFixed(1))).toEqual(['0.6', '0.8']);
  });
});

describe('normalize', () => {
  it('scales to unit length and leaves a zero vector alone', () => {
    expect([...normalize(Float32Array.from([3, 4]))].map((value) => value.toFixed(2))).toEqual([
      '0.60',
      '0.80',
    ]);
    expect([...normalize(new Float32Array(3))]).toEqual([0, 0, 0]);
  });
});
