import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { readAlexandriaJsonl } from './alexandria-jsonl.js';
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

describe('readJsonRecords and an over-long JSON line', () => {
  const mebibyte = 1024 * 1024;

  /** A full garbage collection (the flag set at run time), so that only what is held is measured. */
  function collectGarbage(): void {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }

  /**
   * A good record, a 40 MB record line sent in 64 KiB chunks, another good record; every 8 MB the
   * heap still in use after a full collection is recorded (what the reader holds, not its garbage).
   */
  async function* enormousLineBetweenTwo(heap: number[]): AsyncGenerator<Uint8Array> {
    const encoder = new TextEncoder();
    const bytes = encoder.encode('x'.repeat(64 * 1024));
    collectGarbage();
    const base = process.memoryUsage().heapUsed;
    yield encoder.encode('{"id":"first","title":"First paper"}\n{"id":"big","title":"');
    for (let sent = 0; sent < 40 * mebibyte; sent += bytes.length) {
      yield bytes;
      if ((sent + bytes.length) % (8 * mebibyte) === 0) {
        collectGarbage();
        heap.push(process.memoryUsage().heapUsed - base);
      }
    }
    yield encoder.encode('"}\n{"id":"third","title":"Third paper"}\n');
  }

  it('one enormous JSON Lines line is held whole in memory: it is skipped unread and rejected by line', async () => {
    const heap: number[] = [];
    const out: unknown[] = [];
    for await (const record of readJsonRecords(enormousLineBetweenTwo(heap))) {
      out.push(record.ok ? [record.location, record.value] : [record.location, record.reason]);
    }
    expect(out).toEqual([
      ['line 1', { id: 'first', title: 'First paper' }],
      [
        'line 2',
        `line is ${40 * mebibyte + 23} characters (at most ${16 * mebibyte}); skipped without reading it`,
      ],
      ['line 3', { id: 'third', title: 'Third paper' }],
    ]);
    // Up to the 16 MiB cap the line may be a record; past it nothing of it is held. Holding it
    // would grow the heap by its 40 MB (and as much again to parse it).
    expect(heap).toHaveLength(5);
    expect(Math.max(...heap)).toBeLessThan(18 * mebibyte);
    expect(heap.at(-1)).toBeLessThan(4 * mebibyte);
  });

  it('an over-long line is refused by its length in the JSONL readers (not parsed into a 16 MB title), the records around it kept', async () => {
    const items: string[] = [];
    const line = `{"id":"big","title":"${'t'.repeat(16 * mebibyte)}"}`;
    for await (const item of readAlexandriaJsonl(
      textInput(
        '{"id":"a","title":"Paper A"}\n',
        line.slice(0, 100),
        `${line.slice(100)}\n`,
        '{"id":"c","title":"Paper C"}',
      ),
    )) {
      items.push(item.ok ? `${item.location}: ${item.paper.title}` : `${item.location}: ${item.reason}`);
    }
    expect(items).toEqual([
      'line 1: Paper A',
      `line 2: line is ${line.length} characters (at most ${16 * mebibyte}); skipped without reading it`,
      'line 3: Paper C',
    ]);
  });
});
