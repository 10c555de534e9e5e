import { existsSync } from 'node:fs';
import PDFDocument from 'pdfkit';

/** A section of a generated paper: a numbered heading (level 1 section, 2 subsection, …) and its paragraphs. */
export interface PaperSection {
  heading: string;
  level: number;
  /** Paragraphs; `label` is set in bold at the start of the paragraph (a structured abstract's "METHODS:"). */
  paragraphs: Array<{ text: string; label?: string }>;
}

export interface PaperLayout {
  title: string;
  /** A line under the title (authors or a venue), optional. */
  byline?: string;
  sections: PaperSection[];
}

// A serif with wide Unicode coverage when the system has it (Greek letters, ≤, ±, µ keep their
// meaning in the text layer); else the standard Times, whose WinAnsi encoding drops such characters.
const dejaVu = '/usr/share/fonts/truetype/dejavu';
const fonts = existsSync(`${dejaVu}/DejaVuSerif.ttf`)
  ? {
      regular: `${dejaVu}/DejaVuSerif.ttf`,
      bold: `${dejaVu}/DejaVuSerif-Bold.ttf`,
      kind: 'DejaVu Serif',
    }
  : { regular: 'Times-Roman', bold: 'Times-Bold', kind: 'Times' };

/** Which fonts the writer uses (part of the cache key of generated PDFs). */
export const paperFontKind = fonts.kind;

/**
 * Writes a paper as a PDF with pdfkit (a real PDF writer: embedded subset fonts, ToUnicode maps,
 * text set line by line): A4, one column, the title large and centred, numbered bold section headings
 * ("2 Method", "2.1 Data"), justified 10-point paragraphs, page numbers in the footer. The text layer
 * is then read back by the project's own PDF pipeline, like any uploaded paper.
 */
export function writePaperPdf(paper: PaperLayout): Promise<Buffer> {
  const document = new PDFDocument({
    size: 'A4',
    margins: { top: 72, bottom: 72, left: 68, right: 68 },
    bufferPages: true,
    // A fixed date: the same paper gives the same bytes, so the cache key of its parse holds.
    info: { Title: paper.title, Producer: 'pdfkit (Alexandria reader-qa eval)', CreationDate: new Date(0) },
  });
  const parts: Buffer[] = [];
  document.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<Buffer>((resolve, reject) => {
    document.on('end', () => resolve(Buffer.concat(parts)));
    document.on('error', reject);
  });
  document.font(fonts.bold).fontSize(17).text(paper.title, { align: 'center' });
  if (paper.byline) {
    document.moveDown(0.4);
    document.font(fonts.regular).fontSize(11).text(paper.byline, { align: 'center' });
  }
  document.moveDown(1.5);
  const numbers: number[] = [];
  for (const section of paper.sections) {
    numbers.length = Math.min(numbers.length, section.level);
    while (numbers.length < section.level) numbers.push(0);
    numbers[section.level - 1] = (numbers[section.level - 1] ?? 0) + 1;
    // Keep a heading with at least a few lines of its text.
    if (document.y > document.page.height - document.page.margins.bottom - 60) document.addPage();
    document.moveDown(0.6);
    document
      .font(fonts.bold)
      .fontSize(section.level === 1 ? 12 : 11)
      .text(`${numbers.join('.')} ${section.heading}`, { align: 'left' });
    document.moveDown(0.3);
    for (const paragraph of section.paragraphs) {
      document.fontSize(10);
      if (paragraph.label) {
        document.font(fonts.bold).text(`${paragraph.label} `, { continued: true, align: 'justify' });
      }
      document.font(fonts.regular).text(paragraph.text, { align: 'justify', lineGap: 1.5 });
      document.moveDown(0.5);
    }
  }
  const range = document.bufferedPageRange();
  for (let page = range.start; page < range.start + range.count; page += 1) {
    document.switchToPage(page);
    const bottom = document.page.margins.bottom;
    document.page.margins.bottom = 0; // writing inside the margin must not open a new page
    document
      .font(fonts.regular)
      .fontSize(9)
      .text(String(page + 1), 0, document.page.height - 44, { width: document.page.width, align: 'center' });
    document.page.margins.bottom = bottom;
  }
  document.end();
  return done;
}
