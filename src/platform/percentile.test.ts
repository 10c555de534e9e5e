import { describe, expect, it } from 'vitest';
import { percentile } from './percentile.js';

describe('percentile', () => {
  it('takes the nearest rank of unsorted values', () => {
    const values = [9, 1, 7, 3, 5, 10, 2, 8, 4, 6];
    expect(percentile(values, 0.5)).toBe(5);
    expect(percentile(values, 0.95)).toBe(10);
    expect(percentile(values, 0.9)).toBe(9);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile(values, 1)).toBe(10);
    expect(values[0]).toBe(9); // the input is left as it was
  });

  it('sorts numerically, not as text, and is NaN without values', () => {
    expect(percentile([100, 20, 3], 0.5)).toBe(20);
    expect(percentile(Float64Array.of(2.5, -1), 0.5)).toBe(-1);
    expect(percentile([], 0.5)).toBeNaN();
  });
});
