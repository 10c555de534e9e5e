import { decode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import { encodePng } from './png.js';

describe('encodePng', () => {
  it('writes PNGs that a PNG decoder reads back pixel for pixel', () => {
    for (const channels of [1, 3, 4]) {
      const width = 37;
      const height = 11;
      const data = new Uint8Array(width * height * channels).map((_, index) => (index * 31) % 256);
      const decoded = decode(encodePng({ width, height, channels, data }));
      expect(decoded.width).toBe(width);
      expect(decoded.height).toBe(height);
      expect(decoded.channels).toBe(channels);
      expect(decoded.depth).toBe(8);
      expect([...decoded.data]).toEqual([...data]);
    }
  });
});
