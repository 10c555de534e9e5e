import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { readTsvRows } from './tsv-rows.js';

async function rows(...chunks: string[]) {
  const out: [number, string[]][] = [];
  for await (const row of readTsvRows(textInput(...chunks))) out.push([row.line, row.fields]);
  return out;
}

describe('readTsvRows', () => {
  it('reads quoted and unquoted fields, escaped quotes, tabs and line breaks inside quotes', async () => {
    expect(
      await rows('"id"\t"title"\tn\r\n"1"\t"A ""quoted""\tword"\t20\n"2"\t"two\nlines"\t\n\n3\tplain\t7'),
    ).toEqual([
      [1, ['id', 'title', 'n']],
      [2, ['1', 'A "quoted"\tword', '20']],
      [3, ['2', 'two\nlines', '']],
      [6, ['3', 'plain', '7']],
    ]);
  });

  it('gives the same rows whatever the chunk boundaries', async () => {
    const text = '"a"\t"b ""x"" c"\n"d\te"\t1\n';
    const whole = await rows(text);
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await rows(text.slice(0, cut), text.slice(cut))).toEqual(whole);
    }
  });

  it('ends with an error naming the line when a quoted field is never closed (a cut-off file)', async () => {
    await expect(rows('"1"\t"whole"\n"2"\t"cut off\n')).rejects.toThrow(/quote.*line 2/i);
  });

  it('keeps a quote inside an unquoted field and skips blank lines, counting them', async () => {
    expect(await rows('5" disk\tx\r\n\r\n\n"a"\tb')).toEqual([
      [1, ['5" disk', 'x']],
      [4, ['a', 'b']],
    ]);
  });

  it("ends with the input's own error when the input fails", async () => {
    async function* failing() {
      yield '"1"\tone\n';
      throw new Error('disk went away');
    }
    const seen: string[][] = [];
    await expect(
      (async () => {
        for await (const row of readTsvRows(failing())) seen.push(row.fields);
      })(),
    ).rejects.toThrow('disk went away');
  });
});
