import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { assertNoDecompressionBomb } from './stream-guard.js';

/** A PDF-like file with one Flate stream object holding `compressed`. */
function withStream(compressed: Buffer): Uint8Array {
  return Buffer.concat([
    Buffer.from(
      `%PDF-1.7\n1 0 obj\n<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`,
      'latin1',
    ),
    compressed,
    Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
  ]);
}

describe('assertNoDecompressionBomb', () => {
  // Zeros at zlib's best level come close to deflate's largest ratio (about 1000:1): the stream is
  // short, and only the bound on that ratio, not its length alone, says it may be a bomb.
  const limit = 1024 * 1024;
  const zeros = deflateSync(Buffer.alloc(limit + 1), { level: 9 });

  it('refuses a short stream that inflates past the cap at a near-maximal ratio', () => {
    expect(zeros.length * 900).toBeLessThan(limit);
    expect(() => assertNoDecompressionBomb(withStream(zeros), limit)).toThrow(/decompression bomb/);
  });

  it('lets the same stream through under a cap it stays within', () => {
    expect(() => assertNoDecompressionBomb(withStream(zeros), limit + 1)).not.toThrow();
  });

  it('lets through a stream that does not inflate at all (left to the engine)', () => {
    const garbage = Buffer.alloc(600 * 1024, 7);
    expect(() => assertNoDecompressionBomb(withStream(garbage), limit)).not.toThrow();
  });
});
