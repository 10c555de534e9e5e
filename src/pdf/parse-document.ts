import { AppError } from '../domain/errors.js';
import { startsCaption } from '../domain/figure-labels.js';
import type { PdfEngineName } from '../domain/pdf-engines.js';
import type { ParsedDocument } from '../ports/pdf-extractor.js';
import { readAbstract } from './abstract.js';
import { buildBlocks } from './blocks.js';
import { buildChunks, type ChunkSizes, defaultChunkSizes } from './chunker.js';
import type { EnginePage, PageText, PdfEngine } from './engine.js';
import { placeFigures } from './figure-placement.js';
import { defaultFigureLimits, FigureCollector, type FigureLimits, toPixels } from './figures.js';
import { hasRoomForFigure } from './free-space.js';
import { citedIdentifiers } from './front-matter.js';
import { bodyStyleOf } from './headings.js';
import { surveyImages } from './image-survey.js';
import type { ImagePlacement, TextBlock, TextLine, TextRun } from './layout-types.js';
import { findTitleLines, sniffMetadata } from './metadata.js';
import { type OcrOptions, recognizePage } from './ocr.js';
import { pdfiumEngine } from './pdfium-engine.js';
import { pdfjsEngine } from './pdfjs-engine.js';
import { encodePng } from './png.js';
import { orderLines } from './reading-order.js';
import { removeLineNumbers, removeRunningLines } from './running-lines.js';
import { assertNoDecompressionBomb } from './stream-guard.js';
import { buildLines } from './text-lines.js';
import { xmpDoi as readXmpDoi } from './xmp.js';

export interface ParseOptions {
  /** The PDF library that reads text runs and images (see decision 0013). */
  engine: PdfEngineName;
  /** Extract embedded images (default true). */
  images: boolean;
  /** Documents with more pages are refused (payload_too_large). */
  maxPages: number;
  /** Images with more pixels than this are not decoded at all. */
  maxImagePixels: number;
  /**
   * Memory the engine may allocate outside the JavaScript heap, in MB (PDFium's WASM memory; the
   * worker's heap limit does not cover it). Default 1024.
   */
  engineMemoryMb?: number;
  /** A compressed stream that inflates past this many bytes marks the file as a bomb (422). */
  maxStreamBytes: number;
  figures: FigureLimits;
  chunks: ChunkSizes;
  /** Recognise the text of pages that have none (scans) with Tesseract; off when absent. */
  ocr?: OcrOptions;
}

export const defaultParseOptions: ParseOptions = {
  engine: 'pdfium',
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

const engines: Record<PdfEngineName, PdfEngine> = { pdfjs: pdfjsEngine, pdfium: pdfiumEngine };

/**
 * The whole pipeline for one PDF, run inside a worker thread: the engine's positioned text runs and
 * image placements per page → line segments → running headers/footers removed → column-aware
 * reading order → headings, paragraphs and captions (de-hyphenated, NFKC) → chunks; figures decoded
 * to PNG and attached to the chunk holding their caption. Throws AppError (`unprocessable`,
 * `payload_too_large`) for documents it cannot or will not read.
 */
export async function parseDocument(
  bytes: Uint8Array,
  options: ParseOptions = defaultParseOptions,
): Promise<ParsedDocument> {
  const engine = engines[options.engine];
  // Checked and surveyed before the engine takes (and may detach) the buffer.
  assertNoDecompressionBomb(bytes, options.maxStreamBytes);
  const xmpDoi = readXmpDoi(bytes);
  const survey =
    options.images && !engine.cheapImagePlacements
      ? surveyImages(bytes, options.figures.minSidePixels)
      : undefined;
  const document = await engine.open(bytes, {
    maxImagePixels: options.maxImagePixels,
    ...(options.engineMemoryMb ? { memoryLimitBytes: options.engineMemoryMb * 1024 * 1024 } : {}),
  });
  try {
    if (document.pageCount > options.maxPages) {
      throw new AppError(
        'payload_too_large',
        `The PDF has ${document.pageCount} pages; at most ${options.maxPages} are read (ALEXANDRIA_PDF_MAX_PAGES).`,
        { param: 'file' },
      );
    }
    const figures = new FigureCollector(options.figures);
    const wantImages = options.images && (engine.cheapImagePlacements || (survey?.figureCandidates ?? 0) > 0);
    const pages: PageResult[] = [];
    // Page 1's runs, for the byline (metadata): superscript markers are runs of their own there.
    let firstPageRuns: TextRun[] = [];
    let ocrPages = 0;
    for (let number = 1; number <= document.pageCount; number++) {
      const page = await document.page(number);
      try {
        const text = await page.text();
        let runs = text.runs;
        if (options.ocr && !runs.some((run) => /[\p{L}\p{N}]/u.test(run.text))) {
          runs = await recognizeScan(page, text, options.ocr);
          if (runs.length > 0) ocrPages++;
        }
        const upright = removeLineNumbers(runs);
        if (number === 1) firstPageRuns = upright;
        const lines = buildLines(upright, number);
        pages.push({
          page: number,
          width: text.width,
          height: text.height,
          lines,
          rotatedText: text.rotatedText,
        });
        if (wantImages && !figures.exhausted && (engine.cheapImagePlacements || mayShowFigure(lines, text))) {
          const placements = await page.imagePlacements();
          await figures.addPage(
            number,
            text,
            placements,
            (id) => page.imagePixels(id),
            page.imageFile?.bind(page),
          );
        }
      } finally {
        page.close();
      }
    }
    const info = await document.info();
    const parsed = assemble(pages, firstPageRuns, info, xmpDoi, figures, options);
    return ocrPages > 0 ? { ...parsed, ocrPages } : parsed;
  } finally {
    await document.close();
  }
}

function assemble(
  pages: PageResult[],
  firstPageRuns: TextRun[],
  info: Record<string, unknown>,
  xmpDoi: string | undefined,
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
  const hasTextLayer = allLines.some((line) => /[\p{L}\p{N}]/u.test(line.text));
  const blocks = hasTextLayer ? buildBlocks(allLines, body, titleLines) : [];
  const metadata = sniffMetadata({
    info,
    firstPage,
    firstPageRotated: first?.rotatedText ?? [],
    firstPageRuns,
    pageHeight: first?.height ?? 0,
    titleLines,
    body,
    cited: citedIdentifiers(blocks),
    xmpDoi,
  });
  const abstract = readAbstract(blocks);
  if (abstract) metadata.abstract = abstract;
  useMetadataTitle(blocks, metadata.title);
  const collected = figureCollector.finish();
  const placed = placeFigures(collected, blocks);
  const placedById = new Map(placed.map((figure) => [figure.id, figure]));
  const chunks = blocks.length > 0 ? buildChunks(blocks, placed, options.chunks) : [];
  return {
    pageCount: pages.length,
    hasTextLayer: hasTextLayer && chunks.length > 0,
    metadata,
    chunks,
    pageSizes: pages.map((page) => [Math.round(page.width * 10) / 10, Math.round(page.height * 10) / 10]),
    figures: collected.map(({ id, page, number, width, height, image, format }) => {
      const { caption, label } = placedById.get(id) ?? {};
      return {
        id,
        page,
        number,
        ...(label ? { label } : {}),
        width,
        height,
        image,
        format,
        ...(caption ? { caption } : {}),
      };
    }),
  };
}

/**
 * The text of a scanned page: its largest image (a quarter of the page at least), recognised by
 * Tesseract at up to 5000 pixels a side, as positioned runs.
 */
async function recognizeScan(page: EnginePage, size: PageText, ocr: OcrOptions): Promise<TextRun[]> {
  const placements = await page.imagePlacements();
  const area = (box: ImagePlacement) => (box.x1 - box.x0) * (box.bottom - box.top);
  const largest = placements.sort((a, b) => area(b) - area(a))[0];
  if (!largest || area(largest) < 0.25 * size.width * size.height) return [];
  const image = await page.imagePixels(largest.objectId);
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
 * Whether to build the page's operator list to look for images: when a line starts a caption,
 * or when the text leaves an empty square of an inch somewhere (a page filled with text has no
 * uncaptioned figure). On the shared PDFs this skips 0–75% of the pages of papers with figures and
 * misses none of their figures.
 */
function mayShowFigure(lines: TextLine[], page: { width: number; height: number }): boolean {
  return lines.some((line) => startsCaption(line.text)) || hasRoomForFigure(lines, page, 72);
}
