import type { ChunkLine } from '../domain/page-anchors.js';

/**
 * Turns PDF bytes into clean text in reading order, cut into numbered chunks, with the embedded
 * figures. Runs off the event loop (worker threads) with per-document limits. Implementations:
 * `src/pdf` (pdf.js + our own XY-cut reading order).
 */
export interface PdfExtractor {
  /**
   * Parses one PDF. Throws AppError `unprocessable` (422) for a broken, encrypted or hostile file and
   * `timeout`/`payload_too_large` when a limit is hit; the process stays healthy either way.
   */
  extract(bytes: Uint8Array, options?: PdfExtractOptions): Promise<ParsedDocument>;
  /**
   * Draws page `page` (1-based) as a PNG `options.width` pixels wide, as displayed (rotation and
   * crop box applied, the frame of the chunks' line boxes), under the same deadline and memory
   * limits as `extract`. Throws `invalid_request` naming `page` when the PDF has no such page, and
   * `unprocessable`/`timeout` as `extract` does.
   */
  renderPage(bytes: Uint8Array, page: number, options: PdfRenderOptions): Promise<RenderedPage>;
  close(): Promise<void>;
}

export interface PdfRenderOptions {
  /** Image width in pixels; the height follows the page's proportions. */
  width: number;
  signal?: AbortSignal;
}

/** A page drawn as an image (white background, annotations shown). */
export interface RenderedPage {
  png: Uint8Array;
  /** Pixels; `height / width` is the displayed page's proportion (to the pixel). */
  width: number;
  height: number;
  /** Pages of the document. */
  pageCount: number;
}

export interface PdfExtractOptions {
  signal?: AbortSignal;
  /** Extract embedded images (default true). */
  images?: boolean;
}

export interface ParsedDocument {
  pageCount: number;
  /** False when no page has a text layer (a scan): chunks are then empty. */
  hasTextLayer: boolean;
  /**
   * Pages whose text was recognised by OCR (only when OCR is configured and a page had no text
   * layer); `hasTextLayer` is then true because the chunks hold that text.
   */
  ocrPages?: number;
  /** Metadata from the PDF's info dictionary and first page, when found. */
  metadata: PdfMetadata;
  /** Chunks in reading order, numbered from 1 by their position. */
  chunks: ParsedChunk[];
  figures: ParsedFigure[];
  /**
   * Width and height in points of each page as displayed (rotation and crop box applied), page 1
   * first: the frame of the chunks' line boxes. Absent from parses made before boxes existed.
   */
  pageSizes?: Array<[number, number]>;
}

/**
 * What a PDF says about itself, read as printed (decisions 0028, 0050). Identifiers come from the
 * info dictionary and the front matter only, never from the reference list; the year only from
 * what the paper prints, never from the file's creation date.
 */
export interface PdfMetadata {
  title?: string;
  authors?: string[];
  /** The DOI of the document itself: info dictionary, margin stamp or page 1's front matter. */
  doi?: string;
  arxivId?: string;
  /**
   * The year the document prints as its own (a patent's date, an arXiv stamp or id, a
   * published/accepted/received line, a journal line, a copyright line); absent when it prints none.
   */
  year?: number;
  /** The abstract as printed in the front matter (under its heading, or REVTeX's unlabelled block). */
  abstract?: string;
  producer?: string;
}

export interface ParsedChunk {
  /** Markdown text: section headings as `#`/`##` lines, paragraphs separated by blank lines. */
  text: string;
  /** Pages (1-based) the chunk's text comes from. */
  pages: number[];
  /** Ids of the figures that belong to this chunk (see `ParsedFigure.id`). */
  figureIds: string[];
  /**
   * Where the chunk's text is printed, line by line in reading order (absent when unknown, e.g.
   * text from a full-text source): each line's box and the span of `text` it holds.
   */
  lines?: ChunkLine[];
}

export type { ChunkLine } from '../domain/page-anchors.js';

/** How a figure image is encoded. */
export type FigureFormat = 'png' | 'jpeg';

/** File extension and media type of each figure format. */
export const figureFormats: Record<FigureFormat, { extension: string; mediaType: string }> = {
  png: { extension: 'png', mediaType: 'image/png' },
  jpeg: { extension: 'jpg', mediaType: 'image/jpeg' },
};

export interface ParsedFigure {
  /** `p<page>-<n>`, unique within the document. */
  id: string;
  page: number;
  /** 1-based position among the document's extracted images, in document order. */
  number: number;
  /**
   * The label its caption prints ("Figure 6", "Fig. S2", "Table 3", "Extended Data Fig. 2");
   * absent when the image has no caption (a logo, a graphical abstract).
   */
  label?: string;
  width: number;
  height: number;
  /**
   * The image file: PNG (decoded and re-encoded), or the PDF's own JPEG stream when the image was
   * stored as a plain RGB or gray JPEG (passed through, never decoded).
   */
  image: Uint8Array;
  format: FigureFormat;
  /** The caption text ("Figure 3: …") when one was found near the image. */
  caption?: string;
}
