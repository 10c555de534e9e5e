import { describe, expect, it } from 'vitest';
import { readJsonRecords } from './json-records.js';
import { textInput } from './lines.js';

async function records(...chunks: string[]) {
  const out: unknown[] = [];
  for await (const record of readJsonRecords(textInput(...chunks))) {
    out.push(
      record.ok ? [record.location, record.value] : [record.location, `error: ${record.reason.slice(0, 46)}`],
    );
  }
  return out;
}

describe('readJsonRecords', () => {
  it('reads JSON Lines and reports a bad line with its number', async () => {
    expect(await records('{"a":1}\n\n{"a":\n{"a":3}\n')).toEqual([
      ['line 1', { a: 1 }],
      ['line 3', expect.stringMatching(/^error: invalid JSON/)],
      ['line 4', { a: 3 }],
    ]);
  });

  it('streams the elements of a top-level array, split across chunks and lines', async () => {
    expect(await records('[\n  {"a": "x]}"', ',\n "b": [1, {"c": 2}]},\n', '  {"a": 2}\n]\n')).toEqual([
      ['record 1 (line 2)', { a: 'x]}', b: [1, { c: 2 }] }],
      ['record 2 (line 4)', { a: 2 }],
    ]);
  });

  it('reads pretty-printed objects one after the other', async () => {
    expect(await records('{\n  "message": {\n    "DOI": "10.1/x"\n  }\n}\n{\n"b": "\\"}"\n}')).toEqual([
      ['record 1 (line 1)', { message: { DOI: '10.1/x' } }],
      ['record 2 (line 6)', { b: '"}' }],
    ]);
  });

  it('rejects a truncated value at the end of the input', async () => {
    expect(await records('[{"a": 1}, {"a": ')).toEqual([
      ['record 1 (line 1)', { a: 1 }],
      ['record 2 (line 1)', 'error: unterminated JSON value at end of input'],
    ]);
  });
});
