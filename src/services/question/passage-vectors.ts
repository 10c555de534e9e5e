import type { Passage } from './passages.js';

/** A document's passages with their unit vectors (row-major, `dimensions` floats each). */
export interface PassageVectors {
  modelId: string;
  dimensions: number;
  passages: Passage[];
  vectors: Float32Array;
}

const magic = 'AXQ1';

/**
 * Binary form for the BlobStore: `AXQ1`, a little-endian u32 header length, the JSON header (model
 * id, dimensions, passages), zero padding to a multiple of 4, then the floats (little-endian). A
 * 20-page paper (~300 passages × 384 floats) is about 0.5 MB, against ~2.5 MB as JSON numbers.
 */
export function encodePassageVectors(value: PassageVectors): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify({
      modelId: value.modelId,
      dimensions: value.dimensions,
      passages: value.passages.map((passage) => [passage.chunk, passage.text]),
    }),
  );
  const floatsAt = align4(8 + header.length);
  const bytes = new Uint8Array(floatsAt + value.vectors.length * 4);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(magic), 0);
  view.setUint32(4, header.length, true);
  bytes.set(header, 8);
  value.vectors.forEach((float, index) => {
    view.setFloat32(floatsAt + index * 4, float, true);
  });
  return bytes;
}

/** Parses what `encodePassageVectors` wrote; null for anything else (a stale or foreign blob). */
export function decodePassageVectors(bytes: Uint8Array): PassageVectors | null {
  if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(0, 4)) !== magic) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(4, true);
  try {
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as {
      modelId: string;
      dimensions: number;
      passages: Array<[number, string]>;
    };
    const floatsAt = align4(8 + headerLength);
    const count = header.passages.length * header.dimensions;
    if (bytes.length !== floatsAt + count * 4) return null;
    const vectors = new Float32Array(count);
    for (let index = 0; index < count; index += 1)
      vectors[index] = view.getFloat32(floatsAt + index * 4, true);
    return {
      modelId: header.modelId,
      dimensions: header.dimensions,
      passages: header.passages.map(([chunk, text]) => ({ chunk, text })),
      vectors,
    };
  } catch {
    return null;
  }
}

function align4(value: number): number {
  return Math.ceil(value / 4) * 4;
}
