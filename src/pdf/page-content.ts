import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DecodedImage, PageText } from './engine.js';
import type { ImagePlacement, TextRun } from './layout-types.js';
import type { PdfJs } from './pdfjs-loader.js';

type Matrix = [number, number, number, number, number, number];

/**
 * The page's text runs in top-left page space. Upright text becomes runs; text at an angle (arXiv
 * stamps, rotated table headers) is kept apart as plain strings.
 */
export async function readPageText(pdfjs: PdfJs, page: PDFPageProxy): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 });
  const content = await page.getTextContent();
  const runs: TextRun[] = [];
  const rotatedText: string[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    if (item.str.trim().length === 0) {
      // Some producers advance over spaces without gaps; the space item is the only word break.
      const previous = runs[runs.length - 1];
      if (previous && item.str.length > 0) previous.spaceAfter = true;
      continue;
    }
    const [a, b, c, d, x, y] = pdfjs.Util.transform(viewport.transform, item.transform) as Matrix;
    const size = Math.hypot(c, d);
    const upright = a > 0 && d < 0 && Math.abs(b) <= 0.01 * a && Math.abs(c) <= 0.01 * -d;
    if (!upright) {
      rotatedText.push(item.str);
      continue;
    }
    runs.push({ text: item.str, x, y, width: item.width, size, font: item.fontName });
  }
  return { width: viewport.width, height: viewport.height, runs, rotatedText };
}

/**
 * Where the page paints images, from its operator list: the current transformation matrix is
 * tracked through save/restore, cm and form XObjects, and each image XObject fills the unit square
 * under it. Inline images (tiny by pdf.js' rules) and repeated stamps are ignored.
 */
export async function readImagePlacements(pdfjs: PdfJs, page: PDFPageProxy): Promise<ImagePlacement[]> {
  const { OPS, Util } = pdfjs;
  const viewport = page.getViewport({ scale: 1 });
  const operators = await page.getOperatorList();
  const stack: Matrix[] = [];
  let matrix = [...viewport.transform] as Matrix;
  const placements: ImagePlacement[] = [];
  const { fnArray, argsArray } = operators;
  for (let index = 0; index < fnArray.length; index++) {
    const operator = fnArray[index];
    const args = argsArray[index] as unknown[] | null;
    switch (operator) {
      case OPS.save:
        stack.push(matrix);
        break;
      case OPS.restore:
        matrix = stack.pop() ?? matrix;
        break;
      case OPS.transform:
        matrix = Util.transform(matrix, args as Matrix) as Matrix;
        break;
      case OPS.paintFormXObjectBegin: {
        stack.push(matrix);
        const form = args?.[0] as ArrayLike<number> | null | undefined;
        if (form && form.length === 6) matrix = Util.transform(matrix, Array.from(form) as Matrix) as Matrix;
        break;
      }
      case OPS.paintFormXObjectEnd:
        matrix = stack.pop() ?? matrix;
        break;
      case OPS.paintImageXObject: {
        const objectId = args?.[0];
        if (typeof objectId !== 'string') break;
        const [a, b, c, d, e, f] = matrix;
        const xs = [e, a + e, c + e, a + c + e];
        const ys = [f, b + f, d + f, b + d + f];
        placements.push({
          objectId,
          x0: Math.min(...xs),
          x1: Math.max(...xs),
          top: Math.min(...ys),
          bottom: Math.max(...ys),
        });
        break;
      }
      default:
        break;
    }
  }
  return placements;
}

/** Decoded pixels of an image painted on the page (null when pdf.js could not decode it). */
export function readImagePixels(page: PDFPageProxy, objectId: string): Promise<DecodedImage | null> {
  // Images used on several pages are document-wide objects with ids starting "g_".
  const objects = objectId.startsWith('g_') ? page.commonObjs : page.objs;
  return new Promise((resolve) => {
    objects.get(objectId, (image: unknown) => {
      const candidate = image as Partial<DecodedImage> | null;
      if (!candidate?.data || !candidate.width || !candidate.height || !candidate.kind) resolve(null);
      else resolve(candidate as DecodedImage);
    });
  });
}
