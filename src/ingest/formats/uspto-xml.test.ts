import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { fileInput, papersOf, readAll, testFixtures } from './test-support.js';
import { patentNumber, readUsptoXml } from './uspto-xml.js';

const samplesDir = join(testFixtures, 'patents/uspto_xml');
const files = readdirSync(samplesDir).flatMap((folder) =>
  readdirSync(join(samplesDir, folder)).map((name) => join(samplesDir, folder, name)),
);

/** The independent extraction of the same 9 files (scripts/convert_uspto_xml.py). */
interface Expected {
  number: string;
  kind: string;
  country: string;
  date: string;
  filing_date: string;
  title: string;
  abstract: string;
  assignees: string[];
  inventors: string[];
  source_file: string;
}
const expected = readFileSync(join(testFixtures, 'patents/uspto_fulltext_samples.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Expected);

const isoOf = (compact: string) => `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;
const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('USPTO full-text XML', () => {
  it.each(expected.map((record) => [record.source_file, record] as const))(
    'reads %s as the independent extraction does',
    async (file, record) => {
      const path = files.find((candidate) => candidate.endsWith(`/${file}`)) ?? '';
      const [paper] = papersOf(await readAll(readUsptoXml, fileInput(path)));
      const number = patentNumber(record.country, record.number);
      const granted = record.kind.startsWith('B');
      expect(paper).toMatchObject({
        title: record.title,
        authors: record.inventors,
        assignees: record.assignees,
        publication_date: isoOf(record.date),
        filing_date: isoOf(record.filing_date),
        patent_number: number,
        kind: record.kind,
        type: granted ? 'patent' : 'patent-application',
        identifiers: { patent_number: number },
        url: `https://patents.google.com/patent/${number}${record.kind}`,
        source: 'uspto',
      });
      // The other extraction keeps the "Abstract of Disclosure" heading of pap files; ours drops it.
      expect(words(record.abstract)).toContain(words(paper?.abstract ?? '').slice(0, 200));
      expect(paper?.abstract?.length).toBeGreaterThan(100);
    },
  );

  it('canonicalises patent numbers', () => {
    expect(patentNumber('US', '06336130')).toBe('US6336130');
    expect(patentNumber('US', 'D0512345')).toBe('USD512345');
    expect(patentNumber('US', 'RE038123')).toBe('USRE38123');
    expect(patentNumber('US', '20050004974')).toBe('US20050004974');
  });

  it('splits a weekly-style file of concatenated <?xml …?> documents and keeps going after a truncated one', async () => {
    const documents = files.map((path) => readFileSync(path, 'utf8'));
    const truncated = (documents[6] ?? '').slice(0, 5000);
    const bulk = [documents[0], truncated, ...documents.slice(1)].join('\n');
    // Feed it in small chunks so records span many chunk boundaries.
    const chunks = bulk.match(/[\s\S]{1,8192}/g) ?? [];
    const items = await readAll(readUsptoXml, textInput(...chunks));
    expect(items.filter((item) => item.ok)).toHaveLength(9);
    const rejected = items.filter((item) => !item.ok);
    expect(rejected).toEqual([
      {
        ok: false,
        reason: expect.stringMatching(/is not closed before the next record$/),
        location: expect.stringMatching(/^record 2 \(byte \d+\)$/),
      },
    ]);
    const offset = Number(/byte (\d+)/.exec(rejected[0]?.location ?? '')?.[1]);
    expect(
      Buffer.from(bulk)
        .subarray(offset, offset + 20)
        .toString(),
    ).toMatch(/^<(us-patent-grant|PATDOC|patent-application-publication)/);
  });
});
