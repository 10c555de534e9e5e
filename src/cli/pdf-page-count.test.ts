import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  editorialPdf,
  figureAtlasPdf,
  figurePaperPdf,
  gaugingReportPdf,
  scannedPdf,
} from '../../test/helpers/generated-pdfs.js';
import { needsSharedData } from '../../test/helpers/requirements.js';
import { sharedData } from '../ingest/formats/test-support.js';
import { declaredPageCount } from './pdf-page-count.js';

const folder = join(sharedData, 'pdfs');

describe('declaredPageCount (the pages of `alexandria ingest` progress lines)', () => {
  it('counts the pages of PDFs written by pdfkit', async () => {
    expect(declaredPageCount(await editorialPdf())).toBe(2);
    expect(declaredPageCount(await figurePaperPdf())).toBe(3);
    expect(declaredPageCount(await scannedPdf())).toBe(2);
    expect(declaredPageCount(await gaugingReportPdf(40))).toBe(41);
    expect(declaredPageCount(await figureAtlasPdf())).toBeGreaterThan(1);
  });

  it('is undefined for bytes with no page tree, and for a PDF cut before it', async () => {
    expect(declaredPageCount(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n'))).toBeUndefined();
    const whole = await gaugingReportPdf(40);
    expect(declaredPageCount(whole.subarray(0, 2000))).toBeUndefined();
  });

  describe.skipIf(needsSharedData('pdfs/pdfs_manifest.jsonl'))('on the real PDFs of the shared data', () => {
    const manifest = () =>
      readFileSync(join(folder, 'pdfs_manifest.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { file: string; pages: number });
    it('counts what pdfinfo counts, for every one', () => {
      for (const { file, pages } of manifest()) {
        expect(declaredPageCount(readFileSync(join(folder, file))), file).toBe(pages);
      }
    });
  });
});
