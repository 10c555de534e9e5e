import { describe, expect, it } from 'vitest';
import { buildPdf } from '../../test/helpers/pdf-builder.js';
import type { PdfEngine } from './engine.js';
import { pdfiumEngine } from './pdfium-engine.js';
import { bitmapSize } from './pdfium-render.js';
import { pdfjsEngine } from './pdfjs-engine.js';
import type { Pixels } from './png.js';

/** The crop box of the test pages, inside a US Letter media box: text coordinates must subtract it. */
const crop = [36, 72, 576, 720] as const;

/**
 * A page with `/Rotate rotate` and a crop box, whose one line of text reads upright on the displayed
 * page: the text matrix turns it against the page's rotation.
 */
function rotatedPage(rotate: 0 | 90 | 180 | 270): Buffer {
  const matrix = { 0: '1 0 0 1', 90: '0 1 -1 0', 180: '-1 0 0 -1', 270: '0 -1 1 0' }[rotate];
  // Somewhere off-centre in user space, so a wrong origin or a swapped axis shows.
  const origin = { 0: '120 600', 90: '200 150', 180: '480 300', 270: '420 620' }[rotate];
  return buildPdf([
    {
      content: `BT /F1 18 Tf ${matrix} ${origin} Tm (Anchored HIGHLIGHT) Tj ET`,
      entries: `/Rotate ${rotate} /CropBox [${crop.join(' ')}]`,
    },
  ]);
}

/** Box of the pixels darker than mid-grey, or null on a blank image. */
function inkBox(pixels: Pixels) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let y = 0; y < pixels.height; y++) {
    for (let x = 0; x < pixels.width; x++) {
      const at = (y * pixels.width + x) * pixels.channels;
      const luminance =
        ((pixels.data[at] as number) + (pixels.data[at + 1] as number) + (pixels.data[at + 2] as number)) / 3;
      if (luminance < 128) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x + 1);
        y1 = Math.max(y1, y + 1);
      }
    }
  }
  return Number.isFinite(x0) ? { x0, y0, x1, y1 } : null;
}

async function textBox(engine: PdfEngine, bytes: Buffer) {
  const document = await engine.open(new Uint8Array(bytes), { maxImagePixels: 25_000_000 });
  try {
    const page = await document.page(1);
    const text = await page.text();
    page.close();
    const runs = text.runs.filter((run) => run.text.trim());
    return {
      width: text.width,
      height: text.height,
      words: runs.map((run) => run.text).join(' '),
      x0: Math.min(...runs.map((run) => run.x)),
      x1: Math.max(...runs.map((run) => run.x + run.width)),
      // The em box around the baseline: caps rise about 0.72 em above it; no descenders here.
      top: Math.min(...runs.map((run) => run.y - run.size * 0.72)),
      baseline: Math.max(...runs.map((run) => run.y)),
    };
  } finally {
    await document.close();
  }
}

describe('PDFium page drawing', () => {
  it.each([0, 90, 180, 270] as const)(
    'draws a page with /Rotate %i and a crop box in the frame of both engines’ text coordinates',
    async (rotate) => {
      const bytes = rotatedPage(rotate);
      const document = await pdfiumEngine.open(new Uint8Array(bytes), { maxImagePixels: 25_000_000 });
      let pixels: Pixels;
      try {
        const page = await document.page(1);
        pixels = await (page.render as NonNullable<typeof page.render>)(600, 10_000_000);
        page.close();
      } finally {
        await document.close();
      }
      const [displayWidth, displayHeight] =
        rotate % 180 === 0 ? [crop[2] - crop[0], crop[3] - crop[1]] : [crop[3] - crop[1], crop[2] - crop[0]];
      expect(pixels.width).toBe(600);
      expect(pixels.height).toBe(Math.round((600 * displayHeight) / displayWidth));
      const ink = inkBox(pixels);
      expect(ink).not.toBeNull();
      if (!ink) return;
      // Where each engine says the text is, in pixels of this image: the ink must be there, within
      // a pixel or two (anti-aliasing, the em-box estimate), and fill most of the line's width.
      for (const engine of [pdfiumEngine, pdfjsEngine]) {
        const text = await textBox(engine, bytes);
        expect(text.words.replace(/\s+/g, ' ')).toBe('Anchored HIGHLIGHT');
        expect([text.width, text.height]).toEqual([displayWidth, displayHeight]);
        const scale = pixels.width / text.width;
        const box = {
          x0: text.x0 * scale,
          x1: text.x1 * scale,
          y0: text.top * scale,
          y1: text.baseline * scale,
        };
        const slack = 3;
        expect(ink.x0, engine.name).toBeGreaterThanOrEqual(box.x0 - slack);
        expect(ink.x1, engine.name).toBeLessThanOrEqual(box.x1 + slack);
        expect(ink.y0, engine.name).toBeGreaterThanOrEqual(box.y0 - slack);
        expect(ink.y1, engine.name).toBeLessThanOrEqual(box.y1 + slack);
        expect(ink.x1 - ink.x0, engine.name).toBeGreaterThan((box.x1 - box.x0) * 0.9);
        expect(ink.y1 - ink.y0, engine.name).toBeGreaterThan((box.y1 - box.y0) * 0.8);
      }
    },
  );

  it('keeps the page’s proportions, and draws a very long page narrower rather than past the pixel cap', () => {
    expect(bitmapSize({ width: 612, height: 792 }, 1000, 12_000_000)).toEqual({ width: 1000, height: 1294 });
    expect(bitmapSize({ width: 595.276, height: 841.89 }, 200, 12_000_000)).toEqual({
      width: 200,
      height: 283,
    });
    const scroll = bitmapSize({ width: 612, height: 612 * 40 }, 2000, 12_000_000);
    expect(scroll.width * scroll.height).toBeLessThanOrEqual(12_000_000 * 1.001);
    expect(scroll.height / scroll.width).toBeCloseTo(40, 1);
  });
});
