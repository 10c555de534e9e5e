import { AppError } from '../domain/errors.js';
import type { EngineDocument, EngineOpenOptions, EnginePage, PageText, PdfEngine } from './engine.js';
import { readPdfiumImage, readPdfiumJpeg, readPdfiumPlacements } from './pdfium-images.js';
import { loadPdfium, type PdfiumRuntime, releasePdfium } from './pdfium-loader.js';
import { renderPdfiumPage } from './pdfium-render.js';
import { pageView, readPdfiumText } from './pdfium-text.js';

/** A thread keeps its PDFium instance while its memory stays under this (it never shrinks). */
const keepMemoryBytes = 256 * 1024 * 1024;
const defaultMemoryLimitBytes = 1024 * 1024 * 1024;
/** Info dictionary entries read for metadata (the pdf.js engine returns the same keys). */
const infoKeys = ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer', 'CreationDate', 'ModDate'];
/** Non-standard entries, under `Custom` as pdf.js reports them. */
const customKeys = ['doi'];

/**
 * PDFium (BSD/Apache-2.0, through @embedpdf/pdfium's WebAssembly build, MIT): text runs from its
 * text page, image placements from its page objects, pixels from its image decoders. Everything is
 * synchronous inside the worker thread; memory PDFium allocates lives in the instance's WASM memory,
 * which is capped (`memoryLimitBytes`) and freed handle by handle after each page and document.
 */
export const pdfiumEngine: PdfEngine = {
  name: 'pdfium',
  cheapImagePlacements: true,
  async open(bytes: Uint8Array, options: EngineOpenOptions): Promise<EngineDocument> {
    const limit = options.memoryLimitBytes ?? defaultMemoryLimitBytes;
    const runtime = await loadPdfium(limit);
    const { api } = runtime;
    const data = guarded(runtime, limit, () => api.malloc(Math.max(1, bytes.byteLength)));
    if (!data) {
      releasePdfium(keepMemoryBytes);
      throw memoryError(limit);
    }
    runtime.u8.set(bytes, data);
    const document = guarded(runtime, limit, () => api.FPDF_LoadMemDocument(data, bytes.byteLength, 0));
    if (!document) {
      const code = api.FPDF_GetLastError();
      api.free(data);
      throw openingError(code);
    }
    let closed = false;
    return {
      pageCount: guarded(runtime, limit, () => api.FPDF_GetPageCount(document)),
      async page(number: number): Promise<EnginePage> {
        return openPage(runtime, limit, document, number - 1, options.maxImagePixels);
      },
      async info() {
        return guarded(runtime, limit, () => readInfo(runtime, document));
      },
      async close() {
        if (closed) return;
        closed = true;
        if (!runtime.broken) {
          api.FPDF_CloseDocument(document);
          api.free(data);
        }
        releasePdfium(keepMemoryBytes);
      },
    };
  },
};

function openPage(
  runtime: PdfiumRuntime,
  limit: number,
  document: number,
  index: number,
  maxImagePixels: number,
): EnginePage {
  const { api } = runtime;
  const page = guarded(runtime, limit, () => api.FPDF_LoadPage(document, index));
  // A page PDFium cannot load (a damaged page tree) reads as an empty US Letter page.
  const view = page
    ? pageView(runtime, page)
    : { a: 1, b: 0, c: 0, d: -1, e: 0, f: 792, width: 612, height: 792 };
  const images = new Map<string, number>();
  // The bitmap behind the last imagePixels answer: its pixels are a view into the WASM memory, read
  // by the caller before its next call on the page, which destroys the bitmap first.
  let heldBitmap = 0;
  const releaseBitmap = () => {
    if (heldBitmap && !runtime.broken) api.FPDFBitmap_Destroy(heldBitmap);
    heldBitmap = 0;
  };
  return {
    async text(): Promise<PageText> {
      releaseBitmap();
      if (!page) return { width: view.width, height: view.height, runs: [], rotatedText: [] };
      return guarded(runtime, limit, () => {
        const textPage = api.FPDFText_LoadPage(page);
        if (!textPage) return { width: view.width, height: view.height, runs: [], rotatedText: [] };
        try {
          return readPdfiumText(runtime, textPage, view);
        } finally {
          if (!runtime.broken) api.FPDFText_ClosePage(textPage);
        }
      });
    },
    async imagePlacements() {
      releaseBitmap();
      if (!page) return [];
      return guarded(runtime, limit, () =>
        readPdfiumPlacements(runtime, page, view, images, `p${index + 1}`),
      );
    },
    async imagePixels(objectId: string) {
      releaseBitmap();
      const object = images.get(objectId);
      if (!object) return null;
      const held = guarded(runtime, limit, () => readPdfiumImage(runtime, object, maxImagePixels));
      if (!held) return null;
      heldBitmap = held.bitmap;
      return held.image;
    },
    async imageFile(objectId: string) {
      releaseBitmap();
      const object = images.get(objectId);
      if (!object || !page) return null;
      return guarded(runtime, limit, () => readPdfiumJpeg(runtime, object, page, maxImagePixels));
    },
    async render(width: number, maxPixels: number) {
      releaseBitmap();
      if (!page)
        throw new AppError('unprocessable', `Page ${index + 1} of the PDF is damaged and cannot be drawn.`);
      return guarded(runtime, limit, () => renderPdfiumPage(runtime, page, view, width, maxPixels));
    },
    close() {
      releaseBitmap();
      if (page && !runtime.broken) api.FPDF_ClosePage(page);
      images.clear();
    },
  };
}

/**
 * Runs PDFium code; a trap (WebAssembly.RuntimeError: PDFium aborts when an allocation fails, and
 * on internal errors) marks the instance broken, so it is never used again, and fails the document.
 */
function guarded<T>(runtime: PdfiumRuntime, limit: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof WebAssembly.RuntimeError)) throw error;
    runtime.broken = true;
    releasePdfium(keepMemoryBytes);
    // Growth stops within one step (a fifth, at most 96 MB) of the limit.
    if (runtime.memoryBytes > limit * 0.75) throw memoryError(limit, error);
    throw new AppError('unprocessable', `The PDF could not be parsed (PDFium stopped: ${error.message}).`, {
      param: 'file',
      cause: error,
    });
  }
}

function memoryError(limit: number, cause?: unknown): AppError {
  return new AppError(
    'unprocessable',
    `The PDF needs more than ${Math.round(limit / 1048576)} MB of memory to parse (ALEXANDRIA_PDF_MEMORY_MB).`,
    { param: 'file', ...(cause ? { cause } : {}) },
  );
}

/** FPDF_GetLastError codes: 1 unknown, 2 file, 3 format, 4 password, 5 security handler, 6 page. */
function openingError(code: number): AppError {
  if (code === 4) {
    return new AppError('unprocessable', 'The PDF is encrypted with a password and cannot be read.', {
      param: 'file',
    });
  }
  if (code === 5) {
    return new AppError(
      'unprocessable',
      'The PDF is encrypted with an unsupported security handler and cannot be read.',
      { param: 'file' },
    );
  }
  const reason = code === 3 ? 'not a PDF or damaged beyond repair' : `PDFium error ${code}`;
  return new AppError('unprocessable', `The file is not a readable PDF (${reason}).`, { param: 'file' });
}

function readInfo(runtime: PdfiumRuntime, document: number): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  for (const key of infoKeys) {
    const value = metaText(runtime, document, key);
    if (value) info[key] = value;
  }
  const custom: Record<string, string> = {};
  for (const key of customKeys) {
    const value = metaText(runtime, document, key);
    if (value) custom[key] = value;
  }
  if (Object.keys(custom).length > 0) info.Custom = custom;
  return info;
}

/** An info dictionary string: FPDF_GetMetaText gives UTF-16LE with a terminator, its length in bytes. */
function metaText(runtime: PdfiumRuntime, document: number, key: string): string | undefined {
  const { api, wrapped } = runtime;
  const length = wrapped.FPDF_GetMetaText(document, key, 0, 0);
  if (length <= 2) return undefined;
  const buffer = api.malloc(length);
  try {
    wrapped.FPDF_GetMetaText(document, key, buffer, length);
    return Buffer.from(runtime.u8.buffer, buffer, length - 2).toString('utf16le');
  } finally {
    api.free(buffer);
  }
}
