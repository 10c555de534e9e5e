import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfEngineNames } from '../../src/domain/pdf-engines.js';
import { WorkerPdfExtractor, type WorkerPdfExtractorOptions } from '../../src/pdf/worker-pdf-extractor.js';
import { gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { buildPdf, deflateRepeated, textContent } from '../helpers/pdf-builder.js';
import { needsSharedData, needsTesseract, sharedData } from '../helpers/requirements.js';
import { appErrorOf, runPdfExtractorContract } from './pdf-extractor.contract.js';

const defaults: WorkerPdfExtractorOptions = {
  threads: 2,
  timeoutMs: 90_000,
  memoryMb: 512,
  maxPages: 2000,
  maxBytes: 100 * 1024 * 1024,
  figurePixels: 40_000_000,
};

for (const engine of pdfEngineNames) {
  runPdfExtractorContract(
    `${engine} in worker threads`,
    async () => new WorkerPdfExtractor({ ...defaults, engine }),
  );
}

describe.each(pdfEngineNames)('WorkerPdfExtractor limits (%s)', (engine) => {
  const extractors: WorkerPdfExtractor[] = [];
  const create = (options: Partial<WorkerPdfExtractorOptions>) => {
    const extractor = new WorkerPdfExtractor({ ...defaults, threads: 1, engine, ...options });
    extractors.push(extractor);
    return extractor;
  };
  const small = buildPdf([{ content: textContent(['A healthy one-page document.']) }]);
  afterAll(async () => {
    await Promise.all(extractors.map((extractor) => extractor.close()));
  });

  it('refuses documents over the page limit with 413', async () => {
    const pages = Array.from({ length: 60 }, (_, index) => ({ content: textContent([`Page ${index + 1}`]) }));
    const error = await appErrorOf(create({ maxPages: 50 }).extract(buildPdf(pages)));
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toMatch(/60 pages; at most 50/);
  });

  it('refuses a huge page count cheaply (one shared content stream, 20 000 pages)', async () => {
    const pages = Array.from({ length: 20_000 }, () => ({ content: textContent(['Same page again']) }));
    const bytes = buildPdf(pages, { sharedContent: true });
    const started = Date.now();
    const error = await appErrorOf(create({}).extract(bytes));
    expect(error.code).toBe('payload_too_large');
    // Measured: 1–3 s on a busy 2-core machine (reading 20 000 pages would take minutes).
    expect(Date.now() - started).toBeLessThan(40_000);
  });

  it('refuses files over the byte limit with 413 before parsing', async () => {
    const error = await appErrorOf(create({ maxBytes: 100 }).extract(small));
    expect(error.code).toBe('payload_too_large');
    expect(error.message).toMatch(/ALEXANDRIA_PDF_MAX_MB/);
  });

  it('stops a document that overruns its deadline with 504, and the next one parses', async () => {
    // 121 pages take ~300 ms to parse on a laptop: far beyond 20 ms.
    const extractor = create({ timeoutMs: 20 });
    const report = new Uint8Array(await gaugingReportPdf());
    const error = await appErrorOf(extractor.extract(report));
    expect(error.code).toBe('timeout');
    expect(error.message).toMatch(/ALEXANDRIA_PDF_TIMEOUT_MS/);
    const relaxed = create({ timeoutMs: 60_000 });
    expect((await relaxed.extract(small)).chunks[0]?.text).toBe('A healthy one-page document.');
  });

  it('refuses a decompression bomb with 422 before pdf.js inflates it, then parses the next one', async () => {
    // 300 MB of path operators in a 0.6 MB stream: the inflated bytes would live outside the heap limit.
    const flate = await deflateRepeated(Buffer.alloc(1024 * 1024, '0 0 m 1 1 l S\n'), 300);
    const bytes = buildPdf([{ content: flate, compress: 'done' }]);
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const extractor = create({});
    const error = await appErrorOf(extractor.extract(bytes));
    expect(error.code).toBe('unprocessable');
    expect(error.message).toMatch(/decompression bomb/);
    expect((await extractor.extract(small)).chunks[0]?.text).toBe('A healthy one-page document.');
  });

  it('stops a worker that exceeds its heap limit with 422, and the pool replaces it', async () => {
    // 40 MB of operators stays under the bomb guard but makes pdf.js build an operator list
    // of millions of entries when images are wanted and the page may hold figures.
    const flate = await deflateRepeated(Buffer.alloc(1024 * 1024, '0 0 m 1 1 l S\n'), 40);
    const image = '<< /Type /XObject /Subtype /Image /Width 64 /Height 64 >>';
    const bytes = buildPdf([{ content: flate, compress: 'done' }], { extraObjects: [image] });
    const extractor = create({ memoryMb: 128 });
    const error = await appErrorOf(extractor.extract(bytes));
    expect(['unprocessable', 'timeout']).toContain(error.code);
    expect((await extractor.extract(small)).chunks[0]?.text).toBe('A healthy one-page document.');
  });

  it.skipIf(needsTesseract() || needsSharedData('pdfs/lisp_ii_garbage_collector_ai_memo19_SCANNED.pdf'))(
    'reads a scan with OCR when configured',
    async () => {
      const extractor = create({ ocr: { languages: 'eng' }, timeoutMs: 240_000 });
      const scan = new Uint8Array(
        readFileSync(join(sharedData, 'pdfs', 'lisp_ii_garbage_collector_ai_memo19_SCANNED.pdf')),
      );
      const document = await extractor.extract(scan);
      expect(document.ocrPages).toBe(2);
      expect(document.hasTextLayer).toBe(true);
      const text = document.chunks
        .map((chunk) => chunk.text)
        .join('\n\n')
        .replace(/\s+/g, ' ');
      expect(text).toContain('Memo 19--LISP II Garbage Collector');
      // "pro-|grams" joined across the line break, as for born-digital text.
      expect(text).toContain('LISP II will be able to handle arrays, binary programs and other quantities');
      expect(document.figures).toEqual([]);
    },
    300_000,
  );

  it('refuses to start OCR without the tesseract command', () => {
    expect(() => create({ ocr: { languages: 'eng', command: 'no-such-tesseract' } })).toThrow(
      /tesseract-ocr/,
    );
  });
});
