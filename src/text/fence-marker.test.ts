import { describe, expect, it } from 'vitest';
import { FenceMarkerFilter, PromptFence } from './fence.js';

const stream = (chunks: string[]) => {
  const filter = new FenceMarkerFilter();
  return chunks.map((chunk) => filter.push(chunk)).join('') + filter.end();
};

describe('fence markers a model repeats', () => {
  it('are dropped from the answer, also split across chunks, and nothing else changes', () => {
    const fence = new PromptFence('abc123');
    expect(stream([`${fence.open}\nDps condenses DNA.\n${fence.close}\n`])).toBe('\nDps condenses DNA.\n\n');
    expect(stream(['It rose <untrusted-pa', 'per-text nonce="x', '1">quickly.'])).toBe('It rose quickly.');
    expect(stream(['‹/untrusted-paper-text nonce="y"> done'])).toBe(' done');
    const plain = 'p < 0.05 and a <b>bold</b> claim, x<y, <https://example.org/a> and < untrusted words';
    expect(stream([plain])).toBe(plain);
    expect(stream(plain.split(''))).toBe(plain);
  });
});
