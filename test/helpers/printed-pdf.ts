import PDFDocument from 'pdfkit';
import { encodePng } from '../../src/pdf/png.js';

/**
 * Small PDFs written by pdfkit at test time, with every line placed where the test says (so a
 * word can be broken at a line end exactly as a paper breaks it), pictures (PNG) where it says,
 * an arXiv-style stamp in the margin and the info dictionary's dates. Used by the "as printed"
 * tests (decision 0050): figure labels, abstracts, printed years, identifiers, hyphenation.
 */

type FontName = 'Helvetica' | 'Helvetica-Bold' | 'Times-Roman' | 'Times-Bold';

export interface PrintedLine {
  text: string;
  /** Top of the line, in points from the top of the page. */
  y: number;
  x?: number;
  size?: number;
  font?: FontName;
}

export interface PrintedPicture {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Picks the picture's stripes: pictures with different seeds are different images. */
  seed: number;
}

export interface PrintedPage {
  lines: PrintedLine[];
  pictures?: PrintedPicture[];
  /** Text set upright down the left margin, as arXiv stamps a preprint (read as rotated text). */
  stamp?: string;
}

export interface PrintedInfo {
  Title?: string;
  Author?: string;
  CreationDate?: Date;
  ModDate?: Date;
}

/** A US Letter PDF of these pages. */
export function printedPdf(pages: PrintedPage[], info: PrintedInfo = {}): Promise<Buffer> {
  const document = new PDFDocument({
    size: 'LETTER',
    margin: 0,
    autoFirstPage: false,
    info: { Producer: 'pdfkit (Alexandria test documents)', ...info },
  });
  const parts: Buffer[] = [];
  document.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<Buffer>((resolve) => document.on('end', () => resolve(Buffer.concat(parts))));
  for (const page of pages) {
    document.addPage({ size: 'LETTER', margin: 0 });
    for (const picture of page.pictures ?? []) {
      document.image(stripes(picture.seed), picture.x, picture.y, {
        width: picture.width,
        height: picture.height,
      });
    }
    for (const line of page.lines) {
      document
        .font(line.font ?? 'Helvetica')
        .fontSize(line.size ?? 10)
        .text(line.text, line.x ?? 72, line.y, { lineBreak: false });
    }
    if (page.stamp) {
      document.save();
      document.rotate(-90, { origin: [30, 600] });
      document.font('Times-Roman').fontSize(20).text(page.stamp, 30, 600, { lineBreak: false });
      document.restore();
    }
  }
  document.end();
  return done;
}

/** Lines of one paragraph, `leading` points apart, from `y` down. */
export function paragraph(
  texts: string[],
  y: number,
  options: { x?: number; size?: number; leading?: number; font?: FontName } = {},
): PrintedLine[] {
  const size = options.size ?? 10;
  const leading = options.leading ?? size * 1.25;
  return texts.map((text, index) => ({
    text,
    y: y + index * leading,
    size,
    ...(options.x === undefined ? {} : { x: options.x }),
    ...(options.font === undefined ? {} : { font: options.font }),
  }));
}

/** A 240×180 RGB PNG of coloured stripes; the seed sets their widths and colours. */
function stripes(seed: number): Buffer {
  const width = 240;
  const height = 180;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const band = Math.floor(x / (6 + (seed % 7))) + Math.floor(y / (9 + (seed % 5)));
      const at = (y * width + x) * 3;
      data[at] = (band * 37 * seed) % 256;
      data[at + 1] = (band * 91 + seed * 53) % 256;
      data[at + 2] = (band * 17 + y + seed * 11) % 256;
    }
  }
  return Buffer.from(encodePng({ width, height, channels: 3, data }));
}
