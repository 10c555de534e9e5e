/** How token vectors become one sentence vector (sentence-transformers' `1_Pooling/config.json`). */
export type Pooling = 'mean' | 'cls' | 'max';

/**
 * Pools a `[batch, sequence, hidden]` tensor (row-major) into `batch` unit vectors. `lengths[b]` is
 * the number of real (unpadded) tokens of row `b`; padding never contributes. Mean pooling divides
 * by the real length, as sentence-transformers does (its attention-mask-weighted mean).
 */
export function poolTokens(
  hidden: Float32Array,
  lengths: readonly number[],
  sequence: number,
  size: number,
  pooling: Pooling,
): Float32Array[] {
  return lengths.map((length, row) => {
    const vector = new Float32Array(size);
    const base = row * sequence * size;
    if (pooling === 'cls' || length === 0) {
      vector.set(hidden.subarray(base, base + size));
    } else if (pooling === 'max') {
      vector.fill(Number.NEGATIVE_INFINITY);
      for (let token = 0; token < length; token += 1) {
        const offset = base + token * size;
        for (let dim = 0; dim < size; dim += 1) {
          const value = hidden[offset + dim] as number;
          if (value > (vector[dim] as number)) vector[dim] = value;
        }
      }
    } else {
      for (let token = 0; token < length; token += 1) {
        const offset = base + token * size;
        for (let dim = 0; dim < size; dim += 1)
          vector[dim] = (vector[dim] as number) + (hidden[offset + dim] as number);
      }
      for (let dim = 0; dim < size; dim += 1) vector[dim] = (vector[dim] as number) / length;
    }
    return normalize(vector);
  });
}

/** Scales `vector` in place to unit length (a zero vector stays zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum);
  // sentence-transformers' Normalize uses max(norm, 1e-12); a zero vector stays zero either way.
  if (norm > 1e-12)
    for (let dim = 0; dim < vector.length; dim += 1) vector[dim] = (vector[dim] as number) / norm;
  return vector;
}
