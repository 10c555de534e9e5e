import { describe, expect, it } from 'vitest';
import { decodePassageVectors, encodePassageVectors } from './passage-vectors.js';

describe('passage vectors blob', () => {
  it('round-trips passages and floats exactly, and rejects foreign or truncated bytes', () => {
    const value = {
      modelId: 'onnx:all-MiniLM-L6-v2',
      dimensions: 3,
      passages: [
        { chunk: 0, text: 'Ångström-scale structures — “quoted”.' },
        { chunk: 2, text: 'Second.' },
      ],
      vectors: Float32Array.from([0.1, -0.2, 0.3, 1e-7, 0.5, -0.75]),
    };
    const bytes = encodePassageVectors(value);
    expect(decodePassageVectors(bytes)).toEqual(value);
    expect(decodePassageVectors(bytes.subarray(0, bytes.length - 4))).toBeNull();
    expect(decodePassageVectors(new TextEncoder().encode('%PDF-1.7'))).toBeNull();
  });
});
