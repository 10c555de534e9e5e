import { buildPdf, textContent } from './pdf-builder.js';
import { seededRandom } from './seeded-random.js';

const words = (
  'storage deletion blob content hash release sweep grace period tenant project entry document ' +
  'figure page image vector passage parse chunk replica bucket filesystem database transaction ' +
  'crash recovery orphan reference counting mark collector measurement experiment result method'
).split(' ');

/** An RGB picture with gradients and noise (so it is not a flat colour any encoder shrinks to nothing). */
function picture(width: number, height: number, next: () => number): Buffer {
  const rgb = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      rgb[at] = (x * 255) / width;
      rgb[at + 1] = (y * 255) / height;
      rgb[at + 2] = Math.floor(next() * 256);
    }
  }
  return rgb;
}

/**
 * A small paper built here (it travels with the tests): `pages` US Letter pages with a title,
 * section headings and paragraphs of words, and a distinct figure (a raster image with a caption)
 * on every second page — so it parses into chunks, passages and figures, and draws as pages.
 * Different seeds give different bytes.
 */
export function samplePaperPdf(options: { seed?: number; pages?: number; title?: string } = {}): Buffer {
  const next = seededRandom(options.seed ?? 1);
  const sentence = () =>
    Array.from({ length: 9 + Math.floor(next() * 6) }, () => words[Math.floor(next() * words.length)]).join(
      ' ',
    );
  const pageCount = options.pages ?? 4;
  const pages = Array.from({ length: pageCount }, (_, index) => {
    const withFigure = index % 2 === 0;
    const lines = [
      ...(index === 0 ? [options.title ?? `Freeing storage, sample ${options.seed ?? 1}`, ''] : []),
      `${index + 1} Section ${index + 1}`,
      ...Array.from({ length: withFigure ? 18 : 40 }, () => `${sentence()}.`),
    ];
    const text = textContent(lines, { size: 10 });
    if (!withFigure) return { content: text };
    return {
      content: `${text}\nq 300 0 0 180 150 120 cm /Im1 Do Q\n${textContent([`Figure ${index / 2 + 1}: measured ${sentence()}`], { top: 100 })}`,
      images: [{ width: 240, height: 144, rgb: picture(240, 144, next) }],
    };
  });
  return buildPdf(pages);
}
