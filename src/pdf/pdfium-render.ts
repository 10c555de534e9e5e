import { AppError } from '../domain/errors.js';
import type { PdfiumRuntime } from './pdfium-loader.js';
import type { PageView } from './pdfium-text.js';
import type { Pixels } from './png.js';

/** FPDF_RenderPageBitmap flags: draw annotations (form fields, stamps, highlights); no LCD text. */
const FPDF_ANNOT = 0x01;
const white = 0xffffffff;

/**
 * Draws a loaded page into a PDFium bitmap `width` pixels wide and returns it as RGB pixels.
 * FPDF_RenderPageBitmap with no extra rotation draws the page as displayed: its /Rotate applied and
 * its crop box (clipped to the media box) filling the bitmap, which is exactly the page space
 * `pageView` maps the text into. So a line box at (x, y) points lies at (x, y) · width / view.width
 * pixels, and fractions of the page are fractions of the image. The bitmap is BGRx (4 bytes a
 * pixel, rows padded to the stride); its memory comes from the capped WASM heap and is freed here.
 */
export function renderPdfiumPage(
  runtime: PdfiumRuntime,
  page: number,
  view: PageView,
  width: number,
  maxPixels: number,
): Pixels {
  const { api } = runtime;
  const size = bitmapSize(view, width, maxPixels);
  const bitmap = api.FPDFBitmap_Create(size.width, size.height, 0);
  if (!bitmap) {
    throw new AppError(
      'unprocessable',
      `The page could not be drawn at ${size.width}×${size.height} pixels within the memory limit (ALEXANDRIA_PDF_MEMORY_MB).`,
    );
  }
  try {
    api.FPDFBitmap_FillRect(bitmap, 0, 0, size.width, size.height, white);
    api.FPDF_RenderPageBitmap(bitmap, page, 0, 0, size.width, size.height, 0, FPDF_ANNOT);
    const stride = api.FPDFBitmap_GetStride(bitmap);
    const buffer = api.FPDFBitmap_GetBuffer(bitmap);
    // Read after drawing: drawing may grow the memory, which replaces the views.
    const source = runtime.u8;
    const data = new Uint8Array(size.width * size.height * 3);
    for (let row = 0; row < size.height; row++) {
      let from = buffer + row * stride;
      let to = row * size.width * 3;
      for (let column = 0; column < size.width; column++, from += 4, to += 3) {
        data[to] = source[from + 2] as number;
        data[to + 1] = source[from + 1] as number;
        data[to + 2] = source[from] as number;
      }
    }
    return { width: size.width, height: size.height, channels: 3, data };
  } finally {
    if (!runtime.broken) api.FPDFBitmap_Destroy(bitmap);
  }
}

/**
 * The image size for a page drawn `width` pixels wide: the height keeps the page's proportions; a
 * page so long (a scroll-like poster) that it would pass `maxPixels` is drawn narrower instead.
 */
export function bitmapSize(
  page: { width: number; height: number },
  width: number,
  maxPixels: number,
): { width: number; height: number } {
  const pageWidth = page.width > 0 ? page.width : 612;
  const pageHeight = page.height > 0 ? page.height : 792;
  let scale = width / pageWidth;
  if (pageWidth * scale * pageHeight * scale > maxPixels) {
    scale = Math.sqrt(maxPixels / (pageWidth * pageHeight));
  }
  return {
    width: Math.max(1, Math.round(pageWidth * scale)),
    height: Math.max(1, Math.round(pageHeight * scale)),
  };
}
