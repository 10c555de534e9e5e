import { AppError } from '../domain/errors.js';
import type { RenderedPage } from '../ports/pdf-extractor.js';
import { pdfiumEngine } from './pdfium-engine.js';
import { encodePng } from './png.js';
import { assertNoDecompressionBomb } from './stream-guard.js';

export interface RenderOptions {
  /** 1-based. */
  page: number;
  /** Image width in pixels. */
  width: number;
  /** Largest image drawn, in pixels (a very long page is drawn narrower). */
  maxPixels: number;
  /** Images on the page with more pixels than this are not decoded. */
  maxImagePixels: number;
  /** A compressed stream that inflates past this many bytes marks the file as a bomb (422). */
  maxStreamBytes: number;
  /** PDFium's WASM memory cap, in MB (default 1024). */
  engineMemoryMb?: number;
}

/**
 * Draws one page of a PDF as a PNG, inside a PDF worker thread. Always with PDFium, whichever engine
 * reads the text: pdf.js can only draw onto a canvas, which Node lacks, and both engines put the
 * text in the same page space (PDFium's page as displayed equals pdf.js' viewport at scale 1), so
 * boxes found by either line up with this image (decision 0033).
 */
export async function renderPage(bytes: Uint8Array, options: RenderOptions): Promise<RenderedPage> {
  assertNoDecompressionBomb(bytes, options.maxStreamBytes);
  const document = await pdfiumEngine.open(bytes, {
    maxImagePixels: options.maxImagePixels,
    ...(options.engineMemoryMb ? { memoryLimitBytes: options.engineMemoryMb * 1024 * 1024 } : {}),
  });
  try {
    const pageCount = document.pageCount;
    if (!Number.isInteger(options.page) || options.page < 1 || options.page > pageCount) {
      throw new AppError(
        'invalid_request',
        `page ${options.page} is out of range: the PDF has ${pageCount} page${pageCount === 1 ? '' : 's'}`,
        { param: 'page' },
      );
    }
    const page = await document.page(options.page);
    try {
      if (!page.render) throw new AppError('unprocessable', 'This PDF engine cannot draw pages.');
      const pixels = await page.render(options.width, options.maxPixels);
      return { png: encodePng(pixels), width: pixels.width, height: pixels.height, pageCount };
    } finally {
      page.close();
    }
  } finally {
    await document.close();
  }
}
