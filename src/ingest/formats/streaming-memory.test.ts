import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAlexandriaJsonl } from './alexandria-jsonl.js';
import { readPubmedXml } from './pubmed-xml.js';
import { testFixtures } from './test-support.js';
import { splitXmlRecords } from './xml-records.js';

const mebibyte = 1024 * 1024;

/** Produces `count` copies of a record text, in 64 KiB chunks, without ever holding the whole input. */
async function* repeated(
  count: number,
  record: (index: number) => string,
  prefix = '',
  suffix = '',
): AsyncGenerator<string> {
  let chunk = prefix;
  for (let index = 0; index < count; index += 1) {
    chunk += record(index);
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + suffix;
}

/** Runs `consume`, sampling the heap every `every` items; returns the count and the peak heap growth. */
async function peakHeapGrowth(
  items: AsyncIterable<unknown>,
  every = 5000,
): Promise<{ count: number; growth: number }> {
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  let count = 0;
  for await (const _ of items) {
    count += 1;
    if (count % every === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  }
  return { count, growth: peak };
}

describe('constant-memory streaming', () => {
  it('reads 200,000 JSONL records (~230 MB) with a bounded heap', async () => {
    const abstract = 'word '.repeat(200);
    const line = (index: number) =>
      `${JSON.stringify({ id: `x${index}`, title: `Synthetic paper ${index}`, authors: ['A. Author'], abstract, year: 2020, doi: `10.1000/${index}` })}\n`;
    const { count, growth } = await peakHeapGrowth(readAlexandriaJsonl(repeated(200_000, line)));
    expect(count).toBe(200_000);
    // The input is ~230 MB; the heap may grow by garbage between collections, never by the input.
    expect(growth).toBeLessThan(96 * mebibyte);
  }, 120_000);

  it('splits 300 MB of concatenated USPTO documents holding one record at a time', async () => {
    const document = readFileSync(join(testFixtures, 'patents/uspto_xml/xml2006/US07272630B2.xml'), 'utf8');
    const copies = Math.ceil((300 * mebibyte) / document.length);
    const { count, growth } = await peakHeapGrowth(
      splitXmlRecords(
        repeated(copies, () => `${document}\n`),
        { records: ['us-patent-grant'] },
      ),
      100,
    );
    expect(count).toBe(copies);
    expect(growth).toBeLessThan(96 * mebibyte);
  }, 120_000);

  it('parses 5,000 large PubMed articles (~220 MB) from one stream with a bounded heap', async () => {
    const file = readFileSync(
      join(testFixtures, 'upstream/pubmed_eutils/responses/biopython/pubmed4.xml'),
      'utf8',
    );
    const article = file.slice(file.indexOf('<PubmedArticle>'), file.indexOf('</PubmedArticleSet>'));
    const { count, growth } = await peakHeapGrowth(
      readPubmedXml(
        repeated(
          5_000,
          () => article,
          '<?xml version="1.0"?>\n<PubmedArticleSet>\n',
          '</PubmedArticleSet>\n',
        ),
      ),
      500,
    );
    expect(count).toBe(5_000);
    expect(growth).toBeLessThan(96 * mebibyte);
  }, 120_000);
});
