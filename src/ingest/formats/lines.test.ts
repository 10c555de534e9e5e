import { describe, expect, it } from 'vitest';
import { readLines, textInput } from './lines.js';

async function lines(...chunks: (string | Uint8Array)[]) {
  const out: [number, string][] = [];
  for await (const { line, text } of readLines(textInput(...chunks))) out.push([line, text]);
  return out;
}

describe('readLines', () => {
  it('splits across chunk boundaries, handles CRLF and a missing final newline', async () => {
    expect(await lines('a\r\nb', 'c\n\nd')).toEqual([
      [1, 'a'],
      [2, 'bc'],
      [3, ''],
      [4, 'd'],
    ]);
  });

  it('decodes UTF-8 split inside a multi-byte character and drops a BOM', async () => {
    const bytes = new TextEncoder().encode('\uFEFFKöln\nΩ\n');
    expect(await lines(bytes.slice(0, 5), bytes.slice(5))).toEqual([
      [1, 'Köln'],
      [2, 'Ω'],
    ]);
  });

  it('keeps a chunk without any newline pending until the line ends', async () => {
    expect(await lines('ab', 'cd', 'e\nf')).toEqual([
      [1, 'abcde'],
      [2, 'f'],
    ]);
  });
});
