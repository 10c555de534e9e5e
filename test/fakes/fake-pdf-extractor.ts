import { encode } from 'fast-png';
import { AppError } from '../../src/domain/errors.js';
import type {
  ParsedDocument,
  PdfExtractOptions,
  PdfExtractor,
  PdfRenderOptions,
  RenderedPage,
} from '../../src/ports/pdf-extractor.js';

/**
 * A PdfExtractor for service tests. It "parses" a tiny text format carried after the `%PDF-`
 * header: `%PDF-1.4\n` then blocks separated by `\n---\n`, one block per chunk; a block starting
 * with `!figure` adds a figure, `!broken` throws 422, `!scan` gives a document without text.
 * Records every call, and can be slowed down to test single flight.
 */
export class FakePdfExtractor implements PdfExtractor {
  readonly calls: Uint8Array[] = [];
  delayMs = 0;

  async extract(bytes: Uint8Array, _options?: PdfExtractOptions): Promise<ParsedDocument> {
    this.calls.push(bytes);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const text = Buffer.from(bytes).toString('utf8');
    const body = text.replace(/^%PDF-[\d.]+\n?/, '');
    if (body.includes('!broken')) throw new AppError('unprocessable', 'The PDF is damaged (fake)');
    const blocks = body
      .split('\n---\n')
      .map((block) => block.trim())
      .filter((block) => block.length > 0);
    const meta = /^title: (.*)$/m.exec(body)?.[1];
    const doi = /^doi: (.*)$/m.exec(body)?.[1];
    if (body.includes('!scan')) {
      return {
        pageCount: 2,
        hasTextLayer: false,
        metadata: {},
        chunks: [],
        figures: [1, 2].map((page) => ({
          id: `p${page}-1`,
          page,
          number: page,
          width: 1,
          height: 1,
          image: tinyPng(page),
          format: 'png' as const,
        })),
      };
    }
    const figures: ParsedDocument['figures'] = [];
    const chunks = blocks
      .filter((block) => !block.startsWith('title:') && !block.startsWith('doi:'))
      .map((block, index) => {
        const figureIds: string[] = [];
        if (block.includes('!figure')) {
          const id = `p${index + 1}-1`;
          figures.push({
            id,
            page: index + 1,
            number: figures.length + 1,
            width: 1,
            height: 1,
            image: tinyPng(index),
            format: 'png',
            caption: 'Figure 1: A fake [plot]',
          });
          figureIds.push(id);
        }
        return { text: block.replace('!figure', '').trim(), pages: [index + 1], figureIds };
      });
    return {
      pageCount: chunks.length,
      hasTextLayer: true,
      metadata: {
        ...(meta ? { title: meta } : {}),
        ...(doi ? { doi } : {}),
        authors: ['Ada Lovelace'],
        year: 2020,
      },
      chunks,
      figures,
    };
  }

  /** Pages drawn, as `<page>@<width>`. */
  readonly renders: string[] = [];

  /** A 1×1 placeholder image reporting a US Letter page `width` wide; one page per chunk. */
  async renderPage(bytes: Uint8Array, page: number, options: PdfRenderOptions): Promise<RenderedPage> {
    const { pageCount } = await this.extract(bytes);
    this.calls.pop();
    if (page < 1 || page > pageCount) {
      throw new AppError('invalid_request', `page ${page} is out of range (fake)`, { param: 'page' });
    }
    this.renders.push(`${page}@${options.width}`);
    return {
      png: tinyPng(page),
      width: options.width,
      height: Math.round((options.width * 792) / 612),
      pageCount,
    };
  }

  async close(): Promise<void> {}
}

/** Builds a document in the fake's format. */
export function fakePdf(blocks: string[]): Uint8Array {
  return new Uint8Array(Buffer.from(`%PDF-1.4\n${blocks.join('\n---\n')}`));
}

/** A real 1×1 PNG whose pixel differs by `seed` (distinct bytes per figure). */
function tinyPng(seed: number): Uint8Array {
  return encode({ width: 1, height: 1, data: new Uint8Array([seed & 0xff, 0, 0, 255]), channels: 4 });
}
