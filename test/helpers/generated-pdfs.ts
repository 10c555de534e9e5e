import PDFDocument from 'pdfkit';
import { editorial } from '../fixtures/documents/editorial.js';
import { figureAtlas } from '../fixtures/documents/figure-atlas.js';
import { figurePaper } from '../fixtures/documents/figure-paper.js';
import { gaugingReport } from '../fixtures/documents/gauging-report.js';
import { barChart, writeDocumentPdf, writtenOn } from './document-pdf.js';

/**
 * The PDFs that travel with the code: written by pdfkit at test time from our own texts in
 * test/fixtures/documents (decision 0043). Each is made once per test file and is the same bytes
 * on every machine. Real PDFs from the shared data stay in the opt-in tier (`needsSharedData`).
 */

const made = new Map<string, Promise<Buffer>>();
function once(name: string, make: () => Promise<Buffer>): Promise<Buffer> {
  let pdf = made.get(name);
  if (!pdf) {
    pdf = make();
    made.set(name, pdf);
  }
  return pdf;
}

/** Two A4 pages of an editorial on vaccinating immunosuppressed patients (test/fixtures/documents/editorial.ts). */
export const editorialPdf = () => once('editorial', () => writeDocumentPdf(editorial));

/** Four US Letter pages on river deltas with two figures (embedded PNG bar charts). */
export const figurePaperPdf = () => once('figure-paper', () => writeDocumentPdf(figurePaper));

/** Eight figures, one per short section (several pages): a parse that stores figures one by one. */
export const figureAtlasPdf = () => once('figure-atlas', () => writeDocumentPdf(figureAtlas));

/** A long report, one chapter per page (121 pages by default), with one known answer in it. */
export const gaugingReportPdf = (chapters = 120) =>
  once(`gauging-report-${chapters}`, () => writeDocumentPdf(gaugingReport(chapters)));

/** Two pages that are only images (a "scan"): no text layer at all. */
export const scannedPdf = () =>
  once('scanned', async () => {
    const document = new PDFDocument({
      size: 'A4',
      margin: 0,
      info: { Producer: 'pdfkit (Alexandria test documents)', CreationDate: writtenOn, ModDate: writtenOn },
    });
    const parts: Buffer[] = [];
    document.on('data', (part: Buffer) => parts.push(part));
    const done = new Promise<Buffer>((resolve) => document.on('end', () => resolve(Buffer.concat(parts))));
    document.image(barChart([0.3, 0.6, 0.9], 850, 1200), 0, 0, { width: 595 });
    document.addPage();
    document.image(barChart([0.8, 0.5, 0.2], 850, 1200), 0, 0, { width: 595 });
    document.end();
    return done;
  });
