import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hintHeaderValue } from './hint-header.js';

describe('hintHeaderValue', () => {
  it('keeps plain English as is and encodes the rest so that decodeURIComponent gives the text back', () => {
    const plain = 'Nothing to search: run `alexandria ingest <file or folder>`; ALEXANDRIA_SOURCES=none.';
    expect(hintHeaderValue(plain)).toBe(plain);
    for (const hint of [
      'Results 1–10 of 42 papers. 100% (“quoted”)',
      'No papers contain every keyword (Schrödinger, 量子, 🧬)',
      'line\r\nX-Injected: yes\ttab',
    ]) {
      const value = hintHeaderValue(hint);
      expect(() => validateHeaderValue('x-alexandria-hint', value)).not.toThrow();
      expect(value).toMatch(/^[\x20-\x7e]*$/);
      expect(decodeURIComponent(value)).toBe(hint);
    }
    // A lone surrogate (no UTF-8 exists for it) becomes the replacement character.
    expect(decodeURIComponent(hintHeaderValue('lone \ud800 here'))).toBe('lone \ufffd here');
  });
});
