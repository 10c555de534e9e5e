import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { popplerWords, scoreDocument } from '../../eval/lib/page-anchor-score.js';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { needsPoppler, needsSharedData, sharedData } from '../helpers/requirements.js';

const pdfs = join(sharedData, 'pdfs');

/** How well the sentences of a PDF at `path` are anchored on its pages, as poppler reads them. */
async function anchoring(name: string, path: string) {
  const parsed = await parseDocument(new Uint8Array(readFileSync(path)), {
    ...defaultParseOptions,
    images: false,
  });
  expect(parsed.pageSizes?.length).toBe(parsed.pageCount);
  const score = scoreDocument(parsed, popplerWords(path));
  const figures = `${name}: ${score.anchored}/${score.sentences} sentences anchored, word recall ${score.recall.toFixed(3)}, precision ${score.precision.toFixed(3)}`;
  return { score, figures };
}

describe.skipIf(needsPoppler())(
  'quotes anchored on the page (PDFs written by pdfkit, checked against poppler)',
  () => {
    const folder = mkdtempSync(join(tmpdir(), 'alexandria-anchors-'));
    afterAll(() => rmSync(folder, { recursive: true, force: true }));
    it.each([
      ['editorial.pdf', editorialPdf],
      ['deltas.pdf', figurePaperPdf],
      ['report.pdf', () => gaugingReportPdf(20)],
    ] as const)('%s: sentences are found on their page, inside their boxes', async (name, make) => {
      const path = join(folder, name);
      writeFileSync(path, await make());
      const { score, figures } = await anchoring(name, path);
      expect(score.sentences, figures).toBeGreaterThan(10);
      expect(score.anchored / score.sentences, figures).toBeGreaterThanOrEqual(0.98);
      expect(score.recall, figures).toBeGreaterThanOrEqual(0.95);
      expect(score.precision, figures).toBeGreaterThanOrEqual(0.8);
    });
  },
);

/** Two-column ACL/ACM papers, a one-column journal article, a patent. */
const documents = [
  'citesee_2302.07302v1.pdf',
  'multi_lexsum_2206.10883v3.pdf',
  'litqa_genome_biol_s13059-023-02935-8.pdf',
  'US10510317B2_patent.pdf',
];

describe.skipIf(needsPoppler() || needsSharedData(...documents.map((name) => `pdfs/${name}`)))(
  'quotes anchored on the page (shared PDFs, checked against poppler)',
  () => {
    it.each(documents)('%s: sentences are found on their page, inside their boxes', async (name) => {
      const { score, figures } = await anchoring(name, join(pdfs, name));
      expect(score.sentences, figures).toBeGreaterThan(20);
      expect(score.anchored / score.sentences, figures).toBeGreaterThanOrEqual(0.98);
      expect(score.recall, figures).toBeGreaterThanOrEqual(0.95);
      expect(score.precision, figures).toBeGreaterThanOrEqual(0.8);
    });
  },
);
