import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../domain/errors.js';
import type { ParsedDocument } from '../ports/pdf-extractor.js';
import { buildBlocks } from './blocks.js';
import { buildChunks, type ChunkSizes, defaultChunkSizes } from './chunker.js';
import {
  defaultFigureLimits,
  FigureCollector,
  type FigureLimits,
  placeFigures,
  toPixels,
} from './figures.js';
import { hasRoomForFigure } from './free-space.js';
import { bodyStyleOf } from './headings.js';
import { surveyImages } from './image-survey.js';
import type { ImagePlacement, TextBlock, TextLine, TextRun } from './layout-types.js';
import { findTitleLines, sniffMetadata } from './metadata.js';
import { type OcrOptions, recognizePage } from './ocr.js';
import { readImagePixels, readImagePlacements, readPageText } from './page-content.js';
import { loadPdfJs, type PdfJs, pdfJsDataPaths } from './pdfjs-loader.js';
import { encodePng } from './png.js';
import { orderLines } from './reading-order.js';
import { removeLineNumbers, removeRunningLines } from './running-lines.js';
import { assertNoDecompressionBomb } from './stream-guard.js';
import { buildLines } from './text-lines.js';

export interface ParseOptions {
  /** Extract embedded images (default true). */
  images: boolean;
  /** Documents with more pages are refused (payload_too_large). */
  maxPages: number;
  /** Images with more pixels than this are not decoded at all (pdf.js `maxImageSize`). */
  maxImagePixels: number;
  /** A compressed stream that inflates past this many bytes marks the file as a bomb (422). */
  maxStreamBytes: number;
  figures: FigureLimits;
  chunks: ChunkSizes;
  /** Recognise the text of pages that have none (scans) with Tesseract; off when absent. */
  ocr?: OcrOptions;
}

export const defaultParseOptions: ParseOptions = {
  images: true,
  maxPages: 2000,
  maxImagePixels: 25_000_000,
  maxStreamBytes: 256 * 1024 * 1024,
  figures: defaultFigureLimits,
  chunks: defaultChunkSizes,
};

interface PageResult {
  page: number;
  width: number;
  height: number;
  lines: TextLine[];
  rotatedText: string[];
}

/**
 * The whole pipeline for one PDF, run inside a worker thread: pdf.js positioned text and image
 * placements per page → line segments → running headers/footers removed → column-aware reading
 * order → headings, paragraphs and captions (de-hyphenated, NFKC) → chunks; figures decoded to
 * PNG and attached to the chunk holding their caption. Throws AppError (`unprocessable`,
 * `payload_too_large`) for documents it cannot or will not read.
 */
export async function parseDocument(
  bytes: Uint8Array,
  options: ParseOptions = defaultParseOptions,
): Promise<ParsedDocument> {
  const pdfjs = await loadPdfJs();
  // Checked and surveyed before pdf.js takes (and detaches) the buffer.
  assertNoDecompressionBomb(bytes, options.maxStreamBytes);
  const survey = options.images ? surveyImages(bytes, options.figures.minSidePixels) : undefined;
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
  try {
    if (document.numPages > options.maxPages) {
      throw new AppError(
        'payload_too_large',
        `The PDF has ${document.numPages} pages; at most ${options.maxPages} are read (ALEXANDRIA_PDF_MAX_PAGES).`,
        { param: 'file' },
      );
    }
    const figures = new FigureCollector(options.figures);
    const wantImages = (survey?.figureCandidates ?? 0) > 0;
    const pages: PageResult[] = [];
    let ocrPages = 0;
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      try {
        const text = await readPageText(pdfjs, page);
        let runs = text.runs;
        if (options.ocr && !runs.some((run) => /[\p{L}\p{N}]/u.test(run.text))) {
          runs = await recognizeScan(pdfjs, page, text, options.ocr);
          if (runs.length > 0) ocrPages++;
        }
        const lines = buildLines(removeLineNumbers(runs), number);
        pages.push({
          page: number,
          width: text.width,
          height: text.height,
          lines,
          rotatedText: text.rotatedText,
        });
        if (wantImages && !figures.exhausted && mayShowFigure(lines, text)) {
          const placements = await readImagePlacements(pdfjs, page);
          await figures.addPage(number, text, placements, (id) => readImagePixels(page, id));
        }
      } finally {
        page.cleanup();
      }
    }
    const info = ((await document.getMetadata().catch(() => undefined))?.info ?? {}) as Record<
      string,
      unknown
    >;
    const parsed = assemble(pages, info, figures, options);
    return ocrPages > 0 ? { ...parsed, ocrPages } : parsed;
  } finally {
    await document.destroy().catch(() => undefined);
  }
}

function assemble(
  pages: PageResult[],
  info: Record<string, unknown>,
  figureCollector: FigureCollector,
  options: ParseOptions,
): ParsedDocument {
  const { kept, removed } = removeRunningLines(pages);
  const body = bodyStyleOf(kept.flat());
  const first = pages[0];
  const firstPage = first ? orderLines([...(kept[0] ?? []), ...(removed[0] ?? [])]) : [];
  // The title stays even when the paper repeats it as a running header on later pages.
  const titleLines = first ? findTitleLines(firstPage, first.height, body) : [];
  if (kept[0]) kept[0] = [...new Set([...titleLines, ...kept[0]])];
  const ordered = kept.map((lines) => orderLines(lines));
  const allLines = ordered.flat();
  const metadata = sniffMetadata({
    info,
    firstPage,
    firstPageRotated: first?.rotatedText ?? [],
    titleLines,
    body,
  });

  const hasTextLayer = allLines.some((line) => /[\p{L}\p{N}]/u.test(line.text));
  const blocks = hasTextLayer ? buildBlocks(allLines, body, titleLines) : [];
  useMetadataTitle(blocks, metadata.title);
  const collected = figureCollector.finish();
  const placed = placeFigures(collected, blocks);
  const captionById = new Map(placed.map((figure) => [figure.id, figure.caption]));
  const chunks = blocks.length > 0 ? buildChunks(blocks, placed, options.chunks) : [];
  return {
    pageCount: pages.length,
    hasTextLayer: hasTextLayer && chunks.length > 0,
    metadata,
    chunks,
    figures: collected.map(({ id, page, number, width, height, png }) => {
      const caption = captionById.get(id);
      return { id, page, number, width, height, png, ...(caption ? { caption } : {}) };
    }),
  };
}

/**
 * The text of a scanned page: its largest image (a quarter of the page at least), recognised by
 * Tesseract at up to 5000 pixels a side, as positioned runs.
 */
async function recognizeScan(
  pdfjs: PdfJs,
  page: PDFPageProxy,
  size: { width: number; height: number },
  ocr: OcrOptions,
): Promise<TextRun[]> {
  const placements = await readImagePlacements(pdfjs, page);
  const area = (box: ImagePlacement) => (box.x1 - box.x0) * (box.bottom - box.top);
  const largest = placements.sort((a, b) => area(b) - area(a))[0];
  if (!largest || area(largest) < 0.25 * size.width * size.height) return [];
  const image = await readImagePixels(page, largest.objectId);
  const pixels = image ? toPixels(image, 5000) : undefined;
  if (!pixels) return [];
  return recognizePage(encodePng(pixels), pixels, largest, ocr);
}

/**
 * The printed title sometimes lacks its spaces (words placed side by side without space glyphs);
 * when the info dictionary's title has the same letters, the heading uses it.
 */
function useMetadataTitle(blocks: TextBlock[], title: string | undefined): void {
  const heading = blocks.find((block) => block.kind === 'heading' && block.level === 1);
  const letters = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  if (heading && title && heading.text !== title && letters(heading.text) === letters(title))
    heading.text = title;
}

/**
 * Whether to build the page's operator list to look for images: when a line starts a figure caption,
 * or when the text leaves an empty square of an inch somewhere (a page filled with text has no
 * uncaptioned figure). On the shared PDFs this skips 0–75% of the pages of papers with figures and
 * misses none of their figures.
 */
function mayShowFigure(lines: TextLine[], page: { width: number; height: number }): boolean {
  return (
    lines.some((line) => /^(?:fig(?:ure)?\.?)\s*\d/i.test(line.text)) || hasRoomForFigure(lines, page, 72)
  );
}

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
