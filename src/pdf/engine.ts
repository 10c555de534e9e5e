import type { PdfEngineName } from '../domain/pdf-engines.js';
import type { ImagePlacement, TextRun } from './layout-types.js';
import type { Pixels } from './png.js';

/** One page's text in top-left page space (after the page's rotation and crop box). */
export interface PageText {
  width: number;
  height: number;
  /** Upright text, as positioned runs. */
  runs: TextRun[];
  /** Text drawn at an angle (arXiv stamps in the margin, rotated table headers), as plain strings. */
  rotatedText: string[];
}

/** Decoded pixels of an image painted on a page. */
export interface DecodedImage {
  width: number;
  height: number;
  /**
   * Pixel layout. pdf.js' ImageKind: 1 = 1-bit gray (rows padded to bytes), 2 = RGB, 3 = RGBA; and
   * PDFium's bitmaps as they come: 4 = 8-bit gray, 5 = BGR, 6 = BGRx (x unused), 7 = BGRA.
   */
  kind: number;
  /** Bytes per row, when rows are padded (PDFium bitmaps); else rows are packed. */
  stride?: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** An open document. Pages are read one at a time and closed before the next is opened. */
export interface EngineDocument {
  readonly pageCount: number;
  /** Page `number` (1-based). */
  page(number: number): Promise<EnginePage>;
  /** The info dictionary (Title, Author, Subject, Keywords, CreationDate, Producer, Custom). */
  info(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** An image file taken from the PDF as it is stored (a JPEG stream), without decoding it. */
export interface EncodedImage {
  width: number;
  height: number;
  format: 'jpeg';
  data: Uint8Array;
}

export interface EnginePage {
  text(): Promise<PageText>;
  /** Where images are painted on the page, in paint order. */
  imagePlacements(): Promise<ImagePlacement[]>;
  /**
   * The pixels of a placed image (null when the image cannot be decoded or is over the limit). The
   * data may be a view into the engine's own memory (PDFium's): read or copy it before the next
   * call on the page, which may free it.
   */
  imagePixels(objectId: string): Promise<DecodedImage | null>;
  /**
   * The placed image's stored file when it can be served as it is (a plain RGB or gray JPEG), else
   * null; engines that cannot tell leave it out.
   */
  imageFile?(objectId: string): Promise<EncodedImage | null>;
  /**
   * The page drawn `width` pixels wide in page space (as displayed: rotation and crop box applied),
   * RGB on white, at most `maxPixels` pixels (a narrower image past that). Engines that cannot draw
   * leave it out (pdf.js needs a canvas; decision 0033).
   */
  render?(width: number, maxPixels: number): Promise<Pixels>;
  close(): void;
}

export interface EngineOpenOptions {
  /** Images with more pixels than this are never decoded. */
  maxImagePixels: number;
  /** Cap on memory the engine allocates outside the JavaScript heap (PDFium's WASM memory). */
  memoryLimitBytes?: number;
}

export interface PdfEngine {
  readonly name: PdfEngineName;
  /**
   * Whether finding a page's image placements costs little next to its text. pdf.js must build the
   * page's whole operator list for them (as costly as the text), so the pipeline first checks that
   * the page may show a figure; PDFium has parsed the page's objects already.
   */
  readonly cheapImagePlacements: boolean;
  /**
   * Opens a document. Throws AppError `unprocessable` for a broken or encrypted file. The engine may
   * take (detach) `bytes`.
   */
  open(bytes: Uint8Array, options: EngineOpenOptions): Promise<EngineDocument>;
}
