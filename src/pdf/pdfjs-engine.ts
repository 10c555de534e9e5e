import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../domain/errors.js';
import type { EngineDocument, EngineOpenOptions, EnginePage, PdfEngine } from './engine.js';
import { readImagePixels, readImagePlacements, readPageText } from './page-content.js';
import { loadPdfJs, pdfJsDataPaths } from './pdfjs-loader.js';

/**
 * pdf.js (Apache-2.0): positioned text items from `getTextContent`, image placements from the page's
 * operator list, decoded pixels from its object store. Loaded on first use, inside the worker.
 */
export const pdfjsEngine: PdfEngine = {
  name: 'pdfjs',
  cheapImagePlacements: false,
  async open(bytes: Uint8Array, options: EngineOpenOptions): Promise<EngineDocument> {
    const pdfjs = await loadPdfJs();
    const task = pdfjs.getDocument({
      ...pdfJsDataPaths(),
      data: bytes,
      cMapPacked: true,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      maxImageSize: options.maxImagePixels,
      verbosity: 0,
    });
    let document: PDFDocumentProxy;
    try {
      document = await task.promise;
    } catch (error) {
      await task.destroy().catch(() => undefined);
      throw openingError(error);
    }
    return {
      pageCount: document.numPages,
      async page(number: number): Promise<EnginePage> {
        const page = await document.getPage(number);
        return {
          text: () => readPageText(pdfjs, page),
          imagePlacements: () => readImagePlacements(pdfjs, page),
          imagePixels: (objectId) => readImagePixels(page, objectId),
          close: () => void page.cleanup(),
        };
      },
      async info() {
        const metadata = await document.getMetadata().catch(() => undefined);
        return (metadata?.info ?? {}) as Record<string, unknown>;
      },
      async close() {
        await document.destroy().catch(() => undefined);
      },
    };
  },
};

function openingError(error: unknown): AppError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'PasswordException') {
    return new AppError('unprocessable', 'The PDF is encrypted with a password and cannot be read.', {
      param: 'file',
      cause: error,
    });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new AppError('unprocessable', `The file is not a readable PDF (${detail}).`, {
    param: 'file',
    cause: error,
  });
}
