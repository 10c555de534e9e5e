import type { Paper } from '../../domain/paper.js';

/**
 * Record vectors as both index adapters store them: int8 per dimension with one float32 scale per
 * vector (the largest magnitude over 127), 4 + d bytes — 388 for MiniLM's 384 dimensions instead of
 * 1 536 as float32. Cosine on the decoded vector differs from the float32 one by about 1e-3, far
 * below what moves a rank fusion (docs/decisions/0036-hybrid-paper-search.md).
 */
export function encodeRecordVector(vector: Float32Array): Buffer {
  let largest = 0;
  for (const value of vector) largest = Math.max(largest, Math.abs(value));
  const scale = largest > 0 ? largest / 127 : 1;
  const bytes = Buffer.alloc(4 + vector.length);
  bytes.writeFloatLE(scale, 0);
  for (let index = 0; index < vector.length; index += 1) {
    bytes.writeInt8(Math.max(-127, Math.min(127, Math.round((vector[index] as number) / scale))), 4 + index);
  }
  return bytes;
}

/** The vector `encodeRecordVector` stored (not re-normalised: the scale keeps its length). */
export function decodeRecordVector(bytes: Uint8Array): Float32Array {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const scale = view.readFloatLE(0);
  const vector = new Float32Array(view.length - 4);
  for (let index = 0; index < vector.length; index += 1) vector[index] = view.readInt8(4 + index) * scale;
  return vector;
}

/** Whether a new version of a record changes what its vector was computed from (title, abstract). */
export function vectorTextChanged(before: Paper, after: Paper): boolean {
  return before.title !== after.title || (before.abstract ?? null) !== (after.abstract ?? null);
}
