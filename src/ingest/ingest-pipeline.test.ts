import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakePaperIndex } from '../../test/fakes/fake-paper-index.js';
import { createSqlitePaperIndex } from '../adapters/sqlite/sqlite-paper-index.js';
import { AppError } from '../domain/errors.js';
import type { Paper } from '../domain/paper.js';
import { resolveInputs } from './ingest-inputs.js';
import { type IngestProgress, ingest, StoreError } from './ingest-pipeline.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-ingest-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const record = (title: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: title,
    title,
    authors: ['A. Author'],
    abstract: `About ${title}.`,
    year: 2020,
    venue: 'ACL',
    ...extra,
  });

describe('ingest', () => {
  it('streams records into the index and reports bad ones with their line and reason', async () => {
    const lines = [
      record('First paper about parsing', { acl_id: 'P20-1001' }),
      '{"title": broken json',
      record('Second paper about tagging', { acl_id: 'P20-1002' }),
      JSON.stringify({ id: 'x', authors: [] }),
      record('First paper about parsing', { acl_id: 'P20-1001', cited_by_count: 3 }),
    ];
    await writeFile(join(folder, 'papers.jsonl'), `${lines.join('\n')}\n`);
    const index = await createSqlitePaperIndex(join(folder, 'index.db'));
    const progress: IngestProgress[] = [];
    const report = await ingest(index, await resolveInputs(join(folder, 'papers.jsonl'), Readable.from([])), {
      batchSize: 2,
      onProgress: (update) => progress.push(update),
    });
    expect(report).toMatchObject({ read: 5, inserted: 2, merged: 1, unchanged: 0, rejected: 2 });
    expect(report.examples.map((example) => example.location)).toEqual(['line 2', 'line 4']);
    expect(report.examples[0]?.reason).toMatch(/invalid JSON/);
    expect(report.examples[1]?.reason).toBe('record has no title');
    expect(report.files).toEqual([
      { file: join(folder, 'papers.jsonl'), format: 'jsonl', read: 5, rejected: 2 },
    ]);
    expect(progress.at(-1)).toMatchObject({ read: 5, inserted: 2, merged: 1, rejected: 2, fileCount: 1 });
    expect((await index.findByKeys(['acl:P20-1001']))?.cited_by_count).toBe(3);
    // A re-run (after an interruption, say) adds nothing.
    const again = await ingest(index, await resolveInputs(join(folder, 'papers.jsonl'), Readable.from([])));
    expect(again).toMatchObject({ inserted: 0, merged: 0, unchanged: 3, rejected: 2 });
    await index.close();
  });

  it('reads a folder of PatentsView tables as one: the companions complete g_patent.tsv', async () => {
    // The shipped fixtures, one of them gzipped, copied into a folder as a bulk download would be.
    const source = join(import.meta.dirname, 'formats', '__fixtures__', 'patentsview');
    for (const name of await readdir(source)) {
      const bytes = await readFile(join(source, name));
      if (name === 'g_inventor_disambiguated.tsv')
        await writeFile(join(folder, `${name}.gz`), gzipSync(bytes));
      else await writeFile(join(folder, name), bytes);
    }
    const index = await createSqlitePaperIndex(join(folder, 'index.db'));
    const report = await ingest(index, await resolveInputs(folder, Readable.from([])));
    const patentFile = report.files.find((file) => file.file.endsWith('g_patent.tsv'));
    // The fixture's two bad rows, nothing from the companion tables.
    expect(patentFile).toMatchObject({ format: 'patentsview', rejected: 2 });
    expect(report.examples.map((example) => example.reason)).toEqual([
      'patent 7272631 was withdrawn',
      'row has 3 fields, the header 8',
    ]);
    expect(report.files.filter((file) => file.format === 'companion table')).toHaveLength(4);
    expect(report.inserted).toBe(5);
    expect(await index.findByKeys(['patent:US7272630'])).toMatchObject({
      authors: ['John R. Douceur', 'Marvin M. Theimer', 'Atul Adya', 'William J. Bolosky'],
      assignees: ['Microsoft Corporation'],
      filing_date: '2004-11-18',
    });
    await index.close();
  });

  it('recognises gzip by its bytes, reads folders and stdin, and skips files of no known format', async () => {
    await writeFile(join(folder, 'a-compressed.data'), gzipSync(`${record('Compressed record one')}\n`));
    await writeFile(join(folder, 'b-notes.txt'), 'just some notes, not records\n');
    await writeFile(join(folder, '.hidden.jsonl'), `${record('Hidden record')}\n`);
    const index = new FakePaperIndex();
    const report = await ingest(index, await resolveInputs(folder, Readable.from([])));
    expect(index.upserted.map((paper) => paper.title)).toEqual(['Compressed record one']);
    expect(report.files.map((file) => [file.format, file.error ?? null])).toEqual([
      ['jsonl', null],
      [null, 'format not recognised (give --format)'],
    ]);
    const stdin = Readable.from([Buffer.from(`${record('From standard input')}\n`)]);
    const piped = await ingest(index, await resolveInputs('-', stdin));
    expect(piped).toMatchObject({ read: 1, inserted: 1 });
    expect(piped.files[0]).toMatchObject({ file: '-', format: 'jsonl' });
  });

  it('honours --format and refuses an unknown one', async () => {
    await writeFile(join(folder, 'records.txt'), `${record('Named by the option')}\n`);
    const index = new FakePaperIndex();
    const report = await ingest(index, await resolveInputs(join(folder, 'records.txt'), Readable.from([])), {
      format: 'jsonl',
    });
    expect(report.inserted).toBe(1);
    await expect(ingest(index, [], { format: 'nope' })).rejects.toThrow(
      /Unknown format "nope"; known formats: .*jsonl/,
    );
  });

  it('rejects only the record the index refuses, and stops on a store failure', async () => {
    await writeFile(
      join(folder, 'records.jsonl'),
      [record('Good one'), record('Refused one'), record('Good two')].join('\n'),
    );
    const picky = new FakePaperIndex();
    picky.upsert = async (papers: readonly Paper[]) => {
      if (papers.some((paper) => paper.title === 'Refused one'))
        throw new AppError('unprocessable', 'refused');
      return { inserted: papers.length, merged: 0, unchanged: 0 };
    };
    const report = await ingest(picky, await resolveInputs(join(folder, 'records.jsonl'), Readable.from([])));
    expect(report).toMatchObject({ inserted: 2, rejected: 1 });
    expect(report.examples).toEqual([
      { file: join(folder, 'records.jsonl'), location: 'line 2', reason: 'not stored: refused' },
    ]);
    const broken = new FakePaperIndex();
    broken.upsert = async () => {
      throw new Error('database is locked');
    };
    await expect(
      ingest(broken, await resolveInputs(join(folder, 'records.jsonl'), Readable.from([]))),
    ).rejects.toBeInstanceOf(StoreError);
  });
});
