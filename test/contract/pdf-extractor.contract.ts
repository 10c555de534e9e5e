import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppError, isAppError } from '../../src/domain/errors.js';
import type { ParsedDocument, PdfExtractor } from '../../src/ports/pdf-extractor.js';
import { buildPdf, textContent } from '../helpers/pdf-builder.js';
import { sharedData } from '../helpers/test-app.js';

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
 * The behaviour every PdfExtractor adapter must have, on real PDFs from the shared data and on
 * broken ones. `create` returns a ready extractor; the suite closes it.
 */
export function runPdfExtractorContract(name: string, create: () => Promise<PdfExtractor>): void {
  describe(`PdfExtractor contract: ${name}`, () => {
    let extractor: PdfExtractor;
    let editorial: ParsedDocument;
    beforeAll(async () => {
      extractor = await create();
      editorial = await extractor.extract(readPdf('immunology_editorial_imm13445.pdf'));
    });
    afterAll(async () => {
      await extractor?.close();
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
      const again = await extractor.extract(readPdf('immunology_editorial_imm13445.pdf'));
      expect(again.chunks).toEqual(editorial.chunks);
      for (const chunk of editorial.chunks) {
        expect(chunk.text.length).toBeGreaterThan(0);
        expect(chunk.text.length).toBeLessThanOrEqual(6000);
        expect(chunk.text).toBe(chunk.text.trim());
      }
      for (let index = 1; index < editorial.chunks.length; index++) {
        const before = editorial.chunks[index - 1]?.text ?? '';
        const after = editorial.chunks[index]?.text ?? '';
        expect(/\p{L}$/u.test(before) && /^\p{Ll}/u.test(after)).toBe(false);
      }
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

    it('fails empty, garbage, truncated and encrypted files with 422 and keeps working', async () => {
      const garbage = new Uint8Array(64 * 1024).map((_, index) => (index * 7919) % 251);
      garbage.set(Buffer.from('%PDF-1.7\n'), 0);
      const truncated = readPdf('quantum_criticality_bethe_lattice_1111.2011v2.pdf').subarray(0, 20_000);
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
      const parsing = extractor.extract(
        readPdf('okasaki_purely_functional_data_structures_thesis_1996.pdf'),
        {
          signal: controller.signal,
        },
      );
      controller.abort(new Error('client went away'));
      await expect(parsing).rejects.toThrow('client went away');
    });
  });
}
