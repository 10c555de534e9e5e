import { describe, expect, it } from 'vitest';
import { buildChunks, splitLongText } from './chunker.js';
import type { TextBlock } from './layout-types.js';

function block(text: string, page = 1, kind: TextBlock['kind'] = 'paragraph', level?: number): TextBlock {
  return { kind, text, page, pages: [page], top: 0, bottom: 10, x0: 0, x1: 100, ...(level ? { level } : {}) };
}

const sentence = (index: number) =>
  `Sentence number ${index} says something about the method and its results.`;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => sentence(from + index)).join(' ');

describe('buildChunks', () => {
  const blocks = [
    block('Title of the paper', 1, 'heading', 1),
    block('1 Introduction', 1, 'heading', 2),
    ...Array.from({ length: 12 }, (_, index) => block(paragraph(index * 10, 10), 1 + Math.floor(index / 3))),
    block('2 Method', 4, 'heading', 2),
    block(paragraph(500, 8), 5),
  ];

  it('cuts at paragraph bounds near the target, within the maximum, numbered by position', () => {
    const chunks = buildChunks(blocks, []);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.text.length).toBeGreaterThanOrEqual(1500);
      expect(chunk.text.length).toBeLessThanOrEqual(6000);
    }
    // Every chunk ends at the end of a block: a sentence end or a heading, never inside a word.
    for (const chunk of chunks) expect(chunk.text).toMatch(/\.$/);
    expect(chunks[0]?.text.startsWith('# Title of the paper\n\n## 1 Introduction\n\n')).toBe(true);
  });

  it('starts a new section in a new chunk once the current one is half full, heading first', () => {
    const chunks = buildChunks(blocks, []);
    const method = chunks.find((chunk) => chunk.text.includes('## 2 Method'));
    const before = method?.text.indexOf('## 2 Method') ?? -1;
    expect(before === 0 || (before > 0 && before < 1500)).toBe(true);
    const late = buildChunks(
      [...blocks.slice(0, 6), block('3 Results', 3, 'heading', 2), block('Short.', 3)],
      [],
    );
    expect(late.map((chunk) => chunk.text.split('\n\n')[0])).toEqual([
      '# Title of the paper',
      '## 3 Results',
    ]);
  });

  it('lists the pages and the figures of the blocks it holds, and is deterministic', () => {
    const chunks = buildChunks(blocks, [{ id: 'p4-1', block: 14 }]);
    expect(chunks).toEqual(buildChunks(blocks, [{ id: 'p4-1', block: 14 }]));
    const withFigure = chunks.filter((chunk) => chunk.figureIds.includes('p4-1'));
    expect(withFigure).toHaveLength(1);
    expect(withFigure[0]?.text).toContain('## 2 Method');
    expect(chunks[0]?.pages).toEqual([1, 2]);
  });

  it('cuts an overlong paragraph between sentences, and a sentence without ends between words', () => {
    const long = block(paragraph(0, 200));
    const chunks = buildChunks([long], []);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk.text.length).toBeLessThanOrEqual(5000);
      expect(chunk.text).toMatch(/^Sentence number \d+ .*results\.$/s);
    }
    const words = splitLongText('word '.repeat(3000).trim(), { targetChars: 3000, maxChars: 6000 });
    for (const piece of words) expect(piece).toMatch(/^word( word)*$/);
  });
});
