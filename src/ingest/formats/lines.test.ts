import { describe, expect, it } from 'vitest';
import { LineSplitter, type NumberedLine, readLines, textInput } from './lines.js';

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

describe('LineSplitter with a line cap', () => {
  const cap = 1024 * 1024;
  const chunk = 'x'.repeat(64 * 1024);

  it('one enormous line is held whole in memory: a 40 MB line is skipped as it streams past', () => {
    const splitter = new LineSplitter({ maxLineChars: cap });
    const out: NumberedLine[] = [];
    let held = 0;
    const push = (text: string) => {
      splitter.push(text, out);
      held = Math.max(held, splitter.pendingChars);
    };
    push('{"a":1}\r\n{"big":"');
    for (let sent = 0; sent < 40 * 1024 * 1024; sent += chunk.length) push(chunk);
    push('"}\r\n{"a"');
    push(':3}');
    splitter.end(out);
    expect(held).toBeLessThanOrEqual(cap);
    expect(out.map(({ line, text, overLength }) => [line, text, overLength])).toEqual([
      [1, '{"a":1}', undefined],
      [2, '', 40 * 1024 * 1024 + 11],
      [3, '{"a":3}', undefined],
    ]);
  });

  it('keeps a line of exactly the cap, and reports an over-long last line without a line break', async () => {
    const exact = 'y'.repeat(cap);
    const out: [number, number, number | undefined][] = [];
    for await (const { line, text, overLength } of readLines(
      textInput(exact.slice(0, 10), `${exact.slice(10)}\n`, exact, 'z'),
      { maxLineChars: cap },
    )) {
      out.push([line, text.length, overLength]);
    }
    expect(out).toEqual([
      [1, cap, undefined],
      [2, 0, cap + 1],
    ]);
  });
});
