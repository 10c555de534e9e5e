import { encode } from 'fast-png';
import PDFDocument from 'pdfkit';

/**
 * Writes test documents as real PDFs with pdfkit, laid out line by line like a typeset paper: a
 * title block (title, byline, the DOI printed under it), numbered section headings, paragraphs,
 * figures (real PNG images with a caption), a running header and page numbers.
 * The tests' PDFs that travel with the code are made with it (our own text, Apache-2.0): see
 * test/helpers/generated-pdfs.ts. The same document gives the same bytes.
 */

/** A figure: a bar chart drawn into a PNG, `bars` heights between 0 and 1. */
export interface FigureBlock {
  caption: string;
  bars: number[];
  /** Pixels of the embedded image (it is drawn 300 points wide). */
  width?: number;
  height?: number;
}

export interface DocumentSection {
  heading: string;
  /**
   * Paragraphs and figures. In a paragraph, `-\n` ends a line after a hyphen (a word hyphenated at
   * a line end, as typesetters do), `\n` ends a line; everything else wraps at the text width.
   */
  blocks: Array<string | FigureBlock>;
  /** The paragraphs are the entries of a list (a reference list): hanging indent, space between. */
  list?: boolean;
}

export interface DocumentLayout {
  title: string;
  byline?: string;
  /** Printed under the byline as `https://doi.org/…`, and kept in the info dictionary's Subject. */
  doi?: string;
  /** The running header of every page. */
  runningHeader?: string;
  sections: DocumentSection[];
  /** `A4` (595 × 842 points, the default) or `LETTER` (612 × 792). */
  size?: 'A4' | 'LETTER';
  /** Start every section on a new page (long documents: one chapter per page). */
  sectionPerPage?: boolean;
}

/** The date in every info dictionary: fixed, so the same document gives the same bytes. */
export const writtenOn = new Date(Date.UTC(2024, 0, 15));

const regular = 'Times-Roman';
const bold = 'Times-Bold';
const bodySize = 10.5;
const lineHeight = 13;

/** The PDF of a document (deterministic: fixed dates, no random ids). */
export function writeDocumentPdf(layout: DocumentLayout): Promise<Buffer> {
  const document = new PDFDocument({
    size: layout.size ?? 'A4',
    margins: { top: 72, bottom: 72, left: 72, right: 72 },
    bufferPages: true,
    info: {
      Title: layout.title,
      Author: layout.byline ?? '',
      Subject: layout.doi ? `doi:${layout.doi}` : '',
      Producer: 'pdfkit (Alexandria test documents)',
      CreationDate: writtenOn,
      ModDate: writtenOn,
    },
  });
  const parts: Buffer[] = [];
  document.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('end', () => resolve(Buffer.concat(parts)));
    document.on('error', reject);
  });
  const left = document.page.margins.left;
  const width = document.page.width - left - document.page.margins.right;
  const bottom = () => document.page.height - document.page.margins.bottom;
  const ensureRoom = (height: number) => {
    if (document.y + height > bottom()) document.addPage();
  };

  document.font(bold).fontSize(16).text(layout.title, left, document.y, { width, align: 'center' });
  document.moveDown(0.5);
  if (layout.byline) document.font(regular).fontSize(11).text(layout.byline, { width, align: 'center' });
  if (layout.doi)
    document.font(regular).fontSize(9).text(`https://doi.org/${layout.doi}`, { width, align: 'center' });
  document.moveDown(1.5);

  layout.sections.forEach((section, index) => {
    if (layout.sectionPerPage && index > 0) document.addPage();
    ensureRoom(4 * lineHeight);
    document.moveDown(0.6);
    document
      .font(bold)
      .fontSize(12)
      .text(`${index + 1} ${section.heading}`, left, document.y, { width });
    document.moveDown(0.4);
    for (const block of section.blocks) {
      if (typeof block === 'string') writeParagraph(document, block, left, width, ensureRoom, section.list);
      else writeFigure(document, block, left, width, ensureRoom);
      document.y += section.list ? 2 : lineHeight / 2;
    }
  });

  const range = document.bufferedPageRange();
  for (let page = range.start; page < range.start + range.count; page += 1) {
    document.switchToPage(page);
    const margin = document.page.margins.bottom;
    document.page.margins.bottom = 0; // writing inside the margin must not open a new page
    document.font(regular).fontSize(9);
    if (layout.runningHeader) {
      document.text(layout.runningHeader, left, 40, { width, align: 'center', lineBreak: false });
    }
    document.text(String(page + 1), left, document.page.height - 48, {
      width,
      align: 'center',
      lineBreak: false,
    });
    document.page.margins.bottom = margin;
  }
  document.end();
  return done;
}

/** Breaks a paragraph into lines that fit `width` (greedy), honouring its forced line ends. */
function lines(document: PDFKit.PDFDocument, text: string, width: number): string[] {
  const result: string[] = [];
  for (const forced of text.split('\n')) {
    let line = '';
    for (const word of forced.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (line && document.widthOfString(candidate) > width) {
        result.push(line);
        line = word;
      } else {
        line = candidate;
      }
    }
    if (line) result.push(line);
  }
  return result;
}

function writeParagraph(
  document: PDFKit.PDFDocument,
  text: string,
  left: number,
  width: number,
  ensureRoom: (height: number) => void,
  hanging = false,
): void {
  document.font(regular).fontSize(bodySize);
  const indent = hanging ? 18 : 0;
  lines(document, text, width - indent).forEach((line, index) => {
    ensureRoom(lineHeight);
    document.text(line, left + (index > 0 ? indent : 0), document.y, { lineBreak: false });
    document.y += lineHeight;
    document.x = left;
  });
}

function writeFigure(
  document: PDFKit.PDFDocument,
  figure: FigureBlock,
  left: number,
  width: number,
  ensureRoom: (height: number) => void,
): void {
  const pixels = { width: figure.width ?? 600, height: figure.height ?? 360 };
  const drawnWidth = 300;
  const drawnHeight = (drawnWidth * pixels.height) / pixels.width;
  ensureRoom(drawnHeight + 3 * lineHeight);
  const top = document.y;
  document.image(barChart(figure.bars, pixels.width, pixels.height), left + (width - drawnWidth) / 2, top, {
    width: drawnWidth,
  });
  document.y = top + drawnHeight + lineHeight / 2;
  document.font(regular).fontSize(9);
  for (const line of lines(document, figure.caption, width)) {
    document.text(line, left, document.y, { lineBreak: false });
    document.y += 11;
  }
}

/** A bar chart as PNG bytes: axes, and one coloured bar per value. */
export function barChart(bars: number[], width: number, height: number): Buffer {
  const data = new Uint8Array(width * height * 3).fill(255);
  const paint = (x: number, y: number, rgb: [number, number, number]) => {
    const offset = (y * width + x) * 3;
    data.set(rgb, offset);
  };
  const axis = Math.round(height * 0.9);
  for (let x = Math.round(width * 0.08); x < width * 0.95; x++) paint(x, axis, [0, 0, 0]);
  for (let y = Math.round(height * 0.05); y <= axis; y++) paint(Math.round(width * 0.08), y, [0, 0, 0]);
  const slot = (width * 0.85) / Math.max(bars.length, 1);
  bars.forEach((value, index) => {
    const x0 = Math.round(width * 0.1 + index * slot);
    const top = Math.round(axis - Math.min(Math.max(value, 0), 1) * height * 0.8);
    const colour: [number, number, number] = index % 2 === 0 ? [40, 90, 170] : [200, 110, 40];
    for (let x = x0; x < x0 + slot * 0.7; x++) for (let y = top; y < axis; y++) paint(x, y, colour);
  });
  return Buffer.from(encode({ width, height, data, channels: 3, depth: 8 }));
}
