import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { popplerWords, scoreDocument } from '../../eval/lib/page-anchor-score.js';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';

const pdfs = join(import.meta.dirname, '..', '..', '..', 'shared', 'data', 'pdfs');

/** Two-column ACL/ACM papers, a one-column journal article, a patent. */
const documents = [
  'citesee_2302.07302v1.pdf',
  'multi_lexsum_2206.10883v3.pdf',
  'litqa_genome_biol_s13059-023-02935-8.pdf',
  'US10510317B2_patent.pdf',
];

describe('quotes anchored on the page (shared PDFs, checked against poppler)', () => {
  it.each(documents)('%s: sentences are found on their page, inside their boxes', async (name) => {
    const path = join(pdfs, name);
    const parsed = await parseDocument(new Uint8Array(readFileSync(path)), {
      ...defaultParseOptions,
      images: false,
    });
    expect(parsed.pageSizes?.length).toBe(parsed.pageCount);
    const score = scoreDocument(parsed, popplerWords(path));
    const figures = `${name}: ${score.anchored}/${score.sentences} sentences anchored, word recall ${score.recall.toFixed(3)}, precision ${score.precision.toFixed(3)}`;
    expect(score.sentences, figures).toBeGreaterThan(20);
    expect(score.anchored / score.sentences, figures).toBeGreaterThanOrEqual(0.98);
    expect(score.recall, figures).toBeGreaterThanOrEqual(0.95);
    expect(score.precision, figures).toBeGreaterThanOrEqual(0.8);
  });
});
