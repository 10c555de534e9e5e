import type { DecodedImage, EncodedImage } from './engine.js';
import type { ImagePlacement } from './layout-types.js';
import type { PdfiumRuntime } from './pdfium-loader.js';
import type { PageView } from './pdfium-text.js';

const imageObject = 3;
const formObject = 5;
/** Form XObjects nest; deeper than this is a hostile file, not a figure. */
const maxFormDepth = 12;

/** Matrix [a b c d e f] mapping an object's space to the page's user space. */
type Matrix = [number, number, number, number, number, number];
const identity: Matrix = [1, 0, 0, 1, 0, 0];

/**
 * Where the page paints images, from PDFium's page objects (the page is parsed already, so this
 * costs little): image objects on the page and inside form XObjects, with their bounds in page
 * space. `objects` receives the handle of each placement's image, for `readPdfiumImage`; ids start
 * with `prefix` (unique per page: handles are not, once a page is closed).
 */
export function readPdfiumPlacements(
  runtime: PdfiumRuntime,
  page: number,
  view: PageView,
  objects: Map<string, number>,
  prefix: string,
): ImagePlacement[] {
  const { api } = runtime;
  const placements: ImagePlacement[] = [];
  const visit = (count: number, objectAt: (index: number) => number, matrix: Matrix, depth: number) => {
    for (let index = 0; index < count; index++) {
      const object = objectAt(index);
      if (!object) continue;
      const type = api.FPDFPageObj_GetType(object);
      if (type === formObject && depth < maxFormDepth) {
        // Objects inside a form report bounds in the form's space: the form's matrix maps them out.
        const inner = api.FPDFPageObj_GetMatrix(object, runtime.scratch)
          ? multiply(readMatrix(runtime), matrix)
          : matrix;
        visit(
          api.FPDFFormObj_CountObjects(object),
          (child) => api.FPDFFormObj_GetObject(object, child),
          inner,
          depth + 1,
        );
      } else if (type === imageObject) {
        const scratch = runtime.scratch;
        if (!api.FPDFPageObj_GetBounds(object, scratch, scratch + 4, scratch + 8, scratch + 12)) continue;
        const box = pageBox(
          runtime.scratchFloat(0),
          runtime.scratchFloat(1),
          runtime.scratchFloat(2),
          runtime.scratchFloat(3),
          matrix,
          view,
        );
        const objectId = `${prefix}i${objects.size}`;
        objects.set(objectId, object);
        placements.push({ objectId, ...box });
      }
    }
  };
  visit(api.FPDFPage_CountObjects(page), (index) => api.FPDFPage_GetObject(page, index), identity, 0);
  return placements;
}

/** A decoded image whose pixels are a view into PDFium's memory, and the bitmap that holds them. */
export interface HeldImage {
  image: DecodedImage;
  /** Destroy with FPDFBitmap_Destroy once the pixels are read. */
  bitmap: number;
}

/**
 * The image's own pixels at full resolution (not its soft mask), as PDFium's BGR(x/A) or gray
 * bitmap. The pixels are not copied out of the WASM memory (a figure's bitmap can be tens of MB):
 * the caller keeps the bitmap until it has read them. Images over `maxPixels` are not decoded.
 */
export function readPdfiumImage(runtime: PdfiumRuntime, object: number, maxPixels: number): HeldImage | null {
  const { api, scratch } = runtime;
  if (!api.FPDFImageObj_GetImagePixelSize(object, scratch, scratch + 4)) return null;
  const declaredWidth = runtime.scratchUint(0);
  const declaredHeight = runtime.scratchUint(1);
  if (declaredWidth === 0 || declaredHeight === 0 || declaredWidth * declaredHeight > maxPixels) return null;
  const bitmap = api.FPDFImageObj_GetBitmap(object);
  if (!bitmap) return null;
  const width = api.FPDFBitmap_GetWidth(bitmap);
  const height = api.FPDFBitmap_GetHeight(bitmap);
  const stride = api.FPDFBitmap_GetStride(bitmap);
  const format = api.FPDFBitmap_GetFormat(bitmap);
  const pointer = api.FPDFBitmap_GetBuffer(bitmap);
  const image =
    width > 0 && height > 0 && pointer ? view(runtime.u8, pointer, width, height, stride, format) : null;
  if (!image) {
    api.FPDFBitmap_Destroy(bitmap);
    return null;
  }
  return { image, bitmap };
}

/** FPDF_COLORSPACE values a JPEG may be passed through with: DeviceGray, DeviceRGB, CalGray, CalRGB, ICCBased. */
const passColourSpaces = new Set([1, 2, 4, 5, 7]);
/** Stored JPEGs larger than this are decoded and scaled like other images. */
const maxJpegBytes = 8 * 1024 * 1024;

/**
 * The image's stored JPEG stream when it can be served as it is: its only filter is DCTDecode, and
 * it is 8-bit gray or RGB (a CMYK JPEG shows inverted or not at all in browsers). Null otherwise.
 */
export function readPdfiumJpeg(
  runtime: PdfiumRuntime,
  object: number,
  page: number,
  maxPixels: number,
): EncodedImage | null {
  const { api, scratch } = runtime;
  if (api.FPDFImageObj_GetImageFilterCount(object) !== 1) return null;
  const nameLength = api.FPDFImageObj_GetImageFilter(object, 0, scratch, 32);
  if (nameLength !== 10) return null; // "DCTDecode" and its terminating zero
  if (Buffer.from(runtime.u8.subarray(scratch, scratch + 9)).toString('latin1') !== 'DCTDecode') return null;
  // FPDF_IMAGEOBJ_METADATA: width, height (uint), dpi x, y (float), bits per pixel (uint), colour space (int), …
  if (!api.FPDFImageObj_GetImageMetadata(object, page, scratch)) return null;
  const width = runtime.scratchUint(0);
  const height = runtime.scratchUint(1);
  const bitsPerPixel = runtime.scratchUint(4);
  const colourSpace = runtime.scratchUint(5);
  if (width === 0 || height === 0 || width * height > maxPixels) return null;
  if (!(bitsPerPixel === 8 || bitsPerPixel === 24) || !passColourSpaces.has(colourSpace)) return null;
  const length = api.FPDFImageObj_GetImageDataRaw(object, 0, 0);
  if (length < 4 || length > maxJpegBytes) return null;
  const buffer = api.malloc(length);
  if (!buffer) return null;
  try {
    if (api.FPDFImageObj_GetImageDataRaw(object, buffer, length) !== length) return null;
    const data = runtime.u8.slice(buffer, buffer + length);
    // A JPEG starts with the SOI marker; anything else is left to the decoder.
    if (data[0] !== 0xff || data[1] !== 0xd8) return null;
    return { width, height, format: 'jpeg', data };
  } finally {
    api.free(buffer);
  }
}

/**
 * FPDFBitmap formats 1 gray, 2 BGR, 3 BGRx, 4 BGRA, as they lie in the WASM memory (the figure
 * stage converts to RGB while it scales, in one pass over the pixels).
 */
function view(
  heap: Uint8Array,
  pointer: number,
  width: number,
  height: number,
  stride: number,
  format: number,
): DecodedImage | null {
  const kind = format === 1 ? 4 : format === 2 ? 5 : format === 3 ? 6 : format === 4 ? 7 : 0;
  if (kind === 0) return null;
  return { width, height, kind, stride, data: heap.subarray(pointer, pointer + stride * height) };
}

function readMatrix(runtime: PdfiumRuntime): Matrix {
  return [0, 1, 2, 3, 4, 5].map((index) => runtime.scratchFloat(index)) as Matrix;
}

/** `first` then `second`: a point goes through `first`, the result through `second`. */
function multiply(first: Matrix, second: Matrix): Matrix {
  const [a1, b1, c1, d1, e1, f1] = first;
  const [a2, b2, c2, d2, e2, f2] = second;
  return [
    a1 * a2 + b1 * c2,
    a1 * b2 + b1 * d2,
    c1 * a2 + d1 * c2,
    c1 * b2 + d1 * d2,
    e1 * a2 + f1 * c2 + e2,
    e1 * b2 + f1 * d2 + f2,
  ];
}

function pageBox(
  left: number,
  bottom: number,
  right: number,
  top: number,
  matrix: Matrix,
  view: PageView,
): Omit<ImagePlacement, 'objectId'> {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [x, y] of [
    [left, bottom],
    [right, bottom],
    [left, top],
    [right, top],
  ] as Array<[number, number]>) {
    const [a, b, c, d, e, f] = matrix;
    const userX = a * x + c * y + e;
    const userY = b * x + d * y + f;
    xs.push(view.a * userX + view.c * userY + view.e);
    ys.push(view.b * userX + view.d * userY + view.f);
  }
  return { x0: Math.min(...xs), x1: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
}
