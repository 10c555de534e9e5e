import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppError, isAppError } from '../../src/domain/errors.js';
import type { ParsedDocument, PdfExtractor } from '../../src/ports/pdf-extractor.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf, scannedPdf } from '../helpers/generated-pdfs.js';
import { buildPdf, textContent } from '../helpers/pdf-builder.js';
import { needsSharedData, sharedData } from '../helpers/requirements.js';

const pdfs = join(sharedData, 'pdfs');
const readPdf = (name: string) => new Uint8Array(readFileSync(join(pdfs, name)));
const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`../fixtures/pdf/${name}`, import.meta.url)));

/** The rejection of `promise` as an AppError (fails the test when it resolves or throws anything else). */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

/**
 * A document parsed twice gives the same chunks, each within size bounds, trimmed, and no chunk
 * ends inside a word that the next one continues.
 */
function expectStableChunks(first: ParsedDocument, again: ParsedDocument): void {
  expect(again.chunks).toEqual(first.chunks);
  for (const chunk of first.chunks) {
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.text.length).toBeLessThanOrEqual(6000);
    expect(chunk.text).toBe(chunk.text.trim());
  }
  for (let index = 1; index < first.chunks.length; index++) {
    const before = first.chunks[index - 1]?.text ?? '';
    const after = first.chunks[index]?.text ?? '';
    expect(/\p{L}$/u.test(before) && /^\p{Ll}/u.test(after)).toBe(false);
  }
}

/**
 * The behaviour every PdfExtractor adapter must have, on PDFs written by pdfkit from our own texts
 * (test/helpers/generated-pdfs.ts), on broken ones, and, where the shared data is there, on real
 * papers. `create` returns a ready extractor; the suite closes it.
 */
export function runPdfExtractorContract(name: string, create: () => Promise<PdfExtractor>): void {
  describe(`PdfExtractor contract: ${name}`, () => {
    let extractor: PdfExtractor;
    let editorial: ParsedDocument;
    beforeAll(async () => {
      extractor = await create();
      editorial = await extractor.extract(new Uint8Array(await editorialPdf()));
    });
    afterAll(async () => {
      await extractor?.close();
    });

    it('reads a PDF into numbered chunks of clean text with its metadata', () => {
      expect(editorial.pageCount).toBe(2);
      expect(editorial.hasTextLayer).toBe(true);
      const text = editorial.chunks.map((chunk) => chunk.text).join('\n\n');
      // "treat-|ment" joined, "Long-|lived" kept (the document writes "long-lived"), across line breaks.
      expect(text).toContain(
        'The immunosuppressive treatment regimens that keep a transplanted kidney alive',
      );
      expect(text).toContain('Long-lived memory cells are also a reason');
      expect(text).toContain('after SARS-CoV-2 infection');
      // The running header and the page numbers are gone.
      expect(text).not.toContain('Editorial: vaccination and treatment');
      expect(text).not.toMatch(/^\d+$/m);
      expect(editorial.chunks.length).toBeGreaterThanOrEqual(2);
      expect(editorial.chunks[0]?.pages).toEqual([1]);
      expect(editorial.metadata.doi).toBe('10.5555/alexandria.editorial.2024');
      expect(editorial.metadata.title).toBe(
        'Vaccination and treatment of COVID-19 in immunosuppressed patients',
      );
    });

    it('marks section headings', () => {
      const text = editorial.chunks.map((chunk) => chunk.text).join('\n\n');
      expect(text).toMatch(/^# Vaccination and treatment of COVID-19/m);
      expect(text).toMatch(/^## 3 T-cell responses$/m);
    });

    it('gives the same chunks for the same bytes, within size bounds, never cut inside a word', async () => {
      expectStableChunks(editorial, await extractor.extract(new Uint8Array(await editorialPdf())));
    });

    it('reports a scan without a text layer instead of empty chunks', async () => {
      const scan = await extractor.extract(new Uint8Array(await scannedPdf()));
      expect(scan.pageCount).toBe(2);
      expect(scan.hasTextLayer).toBe(false);
      expect(scan.chunks).toEqual([]);
    });

    it('lists figures as PNG files that the chunks reference, with their captions', async () => {
      const document = await extractor.extract(new Uint8Array(await figurePaperPdf()));
      expect(document.figures.map((figure) => [figure.id, figure.number, figure.format])).toEqual([
        ['p1-1', 1, 'png'],
        ['p2-1', 2, 'png'],
      ]);
      for (const figure of document.figures) {
        expect([...figure.image.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
      }
      expect(new Set(document.chunks.flatMap((chunk) => chunk.figureIds))).toEqual(new Set(['p1-1', 'p2-1']));
      expect(document.figures[0]?.caption).toMatch(/^Figure 1\. Mean yearly sediment delivery/);
      const home = document.chunks.find((chunk) => chunk.figureIds.includes('p1-1'));
      expect(home?.text).toContain('Figure 1. Mean yearly sediment delivery');
      const without = await extractor.extract(new Uint8Array(await figurePaperPdf()), { images: false });
      expect(without.figures).toEqual([]);
      expect(without.chunks.map((chunk) => chunk.text)).toEqual(document.chunks.map((chunk) => chunk.text));
    });

    it('fails empty, garbage, truncated and encrypted files with 422 and keeps working', async () => {
      const garbage = new Uint8Array(64 * 1024).map((_, index) => (index * 7919) % 251);
      garbage.set(Buffer.from('%PDF-1.7\n'), 0);
      const truncated = new Uint8Array(await figurePaperPdf()).subarray(0, 12_000);
      for (const bytes of [new Uint8Array(0), garbage, truncated, fixture('encrypted.pdf')]) {
        const error = await appErrorOf(extractor.extract(bytes));
        expect(error.code).toBe('unprocessable');
        expect(error.param).toBe('file');
      }
      const encrypted = await appErrorOf(extractor.extract(fixture('encrypted.pdf')));
      expect(encrypted.message).toMatch(/password/);
      const healthy = await extractor.extract(
        buildPdf([{ content: textContent(['Still parsing after the broken files.']) }]),
      );
      expect(healthy.chunks[0]?.text).toBe('Still parsing after the broken files.');
    });

    it('stops when the caller aborts', async () => {
      const controller = new AbortController();
      const parsing = extractor.extract(new Uint8Array(await gaugingReportPdf()), {
        signal: controller.signal,
      });
      controller.abort(new Error('client went away'));
      await expect(parsing).rejects.toThrow('client went away');
    });

    describe.skipIf(needsSharedData('pdfs'))('on real papers (shared data)', () => {
      runOnRealPapers(() => extractor);
    });
  });
}

/** The same behaviour on real papers of the shared data: an editorial, an arXiv preprint, a scan, figures. */
function runOnRealPapers(extractorOf: () => PdfExtractor): void {
  let extractor: PdfExtractor;
  let editorial: ParsedDocument;
  beforeAll(async () => {
    extractor = extractorOf();
    editorial = await extractor.extract(readPdf('immunology_editorial_imm13445.pdf'));
  });

  it('reads a real PDF into numbered chunks of clean text with its metadata', () => {
    expect(editorial.pageCount).toBe(2);
    expect(editorial.hasTextLayer).toBe(true);
    const text = editorial.chunks.map((chunk) => chunk.text).join('\n\n');
    // "treat-|ment" joined, "system-|intrinsic" kept, across a line break.
    expect(text).toContain(
      'Patients with cancer often have systemically repressed immune systems, due to a number of factors including potentially immunosuppressive treatment regimens as well as immune system-intrinsic effects.',
    );
    expect(text).toContain('after SARS-CoV-2 infection');
    expect(editorial.chunks[0]?.pages).toEqual([1]);
    expect(editorial.metadata.doi).toBe('10.1111/imm.13445');
    expect(editorial.metadata.title).toBe('COVID-19 vaccination and treatment in vulnerable populations');
  });

  it('gives the same chunks for the same bytes, within size bounds, never cut inside a word', async () => {
    expectStableChunks(editorial, await extractor.extract(readPdf('immunology_editorial_imm13445.pdf')));
  });

  it('finds the arXiv id in the margin stamp and marks section headings', async () => {
    const document = await extractor.extract(readPdf('beyond_summarization_2304.02623v1.pdf'));
    expect(document.metadata.arxivId).toBe('2304.02623v1');
    expect(document.metadata.title).toBe(
      'Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks',
    );
    const text = document.chunks.map((chunk) => chunk.text).join('\n\n');
    expect(text).toMatch(/^# Beyond Summarization/m);
    expect(text).toMatch(/^## 1 INTRODUCTION$/m);
    expect(text).not.toContain('arXiv:2304.02623v1 [cs.CL]');
  });

  it('reports a scan without a text layer instead of empty chunks', async () => {
    const scan = await extractor.extract(readPdf('lisp_ii_garbage_collector_ai_memo19_SCANNED.pdf'));
    expect(scan.pageCount).toBe(2);
    expect(scan.hasTextLayer).toBe(false);
    expect(scan.chunks).toEqual([]);
  });

  it('lists figures as PNG or stored JPEG files that the chunks reference', async () => {
    const document = await extractor.extract(readPdf('papermage_emnlp2023_demo.pdf'));
    expect(document.figures.length).toBeGreaterThanOrEqual(3);
    const ids = new Set(document.figures.map((figure) => figure.id));
    document.figures.forEach((figure, index) => {
      expect(figure.id).toMatch(/^p\d+-\d+$/);
      expect(figure.number).toBe(index + 1);
      if (figure.format === 'png') {
        expect([...figure.image.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
      } else {
        expect(figure.format).toBe('jpeg');
        expect([...figure.image.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      }
    });
    const referenced = document.chunks.flatMap((chunk) => chunk.figureIds);
    expect(new Set(referenced)).toEqual(ids);
    const first = document.figures[0];
    expect(first?.caption).toMatch(/^Figure 1: papermage/);
    const home = document.chunks.find((chunk) => chunk.figureIds.includes(first?.id ?? ''));
    expect(home?.text).toContain('Figure 1: papermage');
  });

  it('skips figures when asked to', async () => {
    const document = await extractor.extract(readPdf('papermage_emnlp2023_demo.pdf'), { images: false });
    expect(document.figures).toEqual([]);
    expect(document.chunks.length).toBeGreaterThan(5);
  });

  it('stops when the caller aborts a long real thesis', async () => {
    const controller = new AbortController();
    const parsing = extractor.extract(readPdf('okasaki_purely_functional_data_structures_thesis_1996.pdf'), {
      signal: controller.signal,
    });
    controller.abort(new Error('client went away'));
    await expect(parsing).rejects.toThrow('client went away');
  });
}
