import { createHash } from 'node:crypto';
import type { FigureFormat } from '../ports/pdf-extractor.js';
import { boxFilter, type PixelLayout } from './box-filter.js';
import type { DecodedImage, EncodedImage } from './engine.js';
import type { ImagePlacement } from './layout-types.js';
import { encodePng, type Pixels } from './png.js';

export interface FigureLimits {
  /** Smallest painted side, in points; smaller images are icons, bullets or rules. */
  minSidePoints: number;
  /** Smallest side in pixels. */
  minSidePixels: number;
  /** Images are scaled down to at most this many pixels on their longer side. */
  maxSidePixels: number;
  /** Pixels (after scaling) encoded per document; later images are skipped. */
  maxTotalPixels: number;
  /** Figures kept per document. */
  maxFigures: number;
}

export const defaultFigureLimits: FigureLimits = {
  minSidePoints: 36,
  minSidePixels: 32,
  maxSidePixels: 2000,
  maxTotalPixels: 40_000_000,
  maxFigures: 200,
};

export interface CollectedFigure {
  id: string;
  page: number;
  number: number;
  width: number;
  height: number;
  image: Uint8Array;
  format: FigureFormat;
  box: ImagePlacement;
}

interface Sighting {
  hash: string;
  page: number;
  box: ImagePlacement;
}

/**
 * Gathers a document's figures page by page: decides which painted images are figures (not
 * icons, rules or whole-page scans), encodes each distinct image once as PNG within a pixel budget,
 * and at the end drops images painted on several pages (logos, banners).
 */
export class FigureCollector {
  readonly #limits: FigureLimits;
  readonly #encoded = new Map<
    string,
    { image: Uint8Array; format: FigureFormat; width: number; height: number }
  >();
  readonly #hashByObject = new Map<string, string | null>();
  readonly #sightings: Sighting[] = [];
  #pixelsLeft: number;

  constructor(limits: FigureLimits = defaultFigureLimits) {
    this.#limits = limits;
    this.#pixelsLeft = limits.maxTotalPixels;
  }

  /** True once the pixel budget or the figure count is used up: further pages need no image work. */
  get exhausted(): boolean {
    return this.#pixelsLeft <= 0 || this.#encoded.size >= this.#limits.maxFigures;
  }

  async addPage(
    page: number,
    size: { width: number; height: number },
    placements: ImagePlacement[],
    readPixels: (objectId: string) => Promise<DecodedImage | null>,
    readFile?: (objectId: string) => Promise<EncodedImage | null>,
  ): Promise<void> {
    for (const box of placements) {
      if (this.exhausted) return;
      if (!this.#isFigureShaped(box, size)) continue;
      let hash = this.#hashByObject.get(box.objectId);
      if (hash === undefined) {
        // A stored JPEG is kept as it is (no decoding, scaling or re-encoding); other images are
        // decoded, scaled and written as PNG.
        const file = readFile ? await readFile(box.objectId) : null;
        if (file) hash = this.#keepFile(file);
        else {
          const image = await readPixels(box.objectId);
          hash = image ? this.#encodeOnce(image) : null;
        }
        this.#hashByObject.set(box.objectId, hash);
      }
      if (hash) this.#sightings.push({ hash, page, box });
    }
  }

  /** The figures in document order, numbered from 1, with ids `p<page>-<n>`. */
  finish(): CollectedFigure[] {
    const pagesByHash = new Map<string, Set<number>>();
    for (const { hash, page } of this.#sightings) {
      const pages = pagesByHash.get(hash) ?? new Set<number>();
      pages.add(page);
      pagesByHash.set(hash, pages);
    }
    const seen = new Set<string>();
    const perPage = new Map<number, number>();
    const figures: CollectedFigure[] = [];
    for (const { hash, page, box } of this.#sightings) {
      if ((pagesByHash.get(hash)?.size ?? 0) > 1 || seen.has(hash)) continue;
      seen.add(hash);
      const image = this.#encoded.get(hash);
      if (!image) continue;
      const index = (perPage.get(page) ?? 0) + 1;
      perPage.set(page, index);
      figures.push({ id: `p${page}-${index}`, page, number: figures.length + 1, ...image, box });
    }
    return figures;
  }

  #isFigureShaped(box: ImagePlacement, page: { width: number; height: number }): boolean {
    const width = box.x1 - box.x0;
    const height = box.bottom - box.top;
    if (Math.min(width, height) < this.#limits.minSidePoints) return false;
    if (Math.max(width, height) / Math.min(width, height) > 12) return false;
    // A picture of the whole page is a scan, not a figure.
    return !(width >= 0.85 * page.width && height >= 0.85 * page.height);
  }

  #encodeOnce(image: DecodedImage): string | null {
    if (Math.min(image.width, image.height) < this.#limits.minSidePixels) return null;
    const pixels = toPixels(image, this.#limits.maxSidePixels);
    if (!pixels) return null;
    // The scaled pixels identify the image: the same picture embedded twice scales the same way.
    const hash = createHash('sha1')
      .update(`${pixels.width}x${pixels.height}:${pixels.channels}:`)
      .update(pixels.data)
      .digest('hex');
    return this.#keep(hash, pixels.width, pixels.height, () => ({ image: encodePng(pixels), format: 'png' }));
  }

  #keepFile(file: EncodedImage): string | null {
    if (Math.min(file.width, file.height) < this.#limits.minSidePixels) return null;
    const hash = createHash('sha1').update(file.data).digest('hex');
    return this.#keep(hash, file.width, file.height, () => ({ image: file.data, format: file.format }));
  }

  /** Keeps an image once (by hash) while the document's pixel budget lasts; `encode` runs only then. */
  #keep(
    hash: string,
    width: number,
    height: number,
    encode: () => { image: Uint8Array; format: FigureFormat },
  ): string | null {
    if (this.#encoded.has(hash)) return hash;
    this.#pixelsLeft -= width * height;
    if (this.#pixelsLeft < 0) return null;
    this.#encoded.set(hash, { ...encode(), width, height });
    return hash;
  }
}

/** Bytes per source pixel and, per output channel, its byte offset in the source pixel. */
const layouts: Record<number, PixelLayout> = {
  2: { step: 3, offsets: [0, 1, 2] },
  3: { step: 4, offsets: [0, 1, 2, 3] },
  4: { step: 1, offsets: [0] },
  5: { step: 3, offsets: [2, 1, 0] },
  6: { step: 4, offsets: [2, 1, 0] },
  7: { step: 4, offsets: [2, 1, 0, 3] },
};

/**
 * Decoded image data as 8-bit gray, RGB or RGBA, box-filtered down to at most `maxSide` pixels a
 * side, in one pass over the source (BGR layouts are reordered on the way).
 */
export function toPixels(image: DecodedImage, maxSide: number): Pixels | undefined {
  const { width, height } = image;
  if (image.kind === 1) {
    const gray = new Uint8Array(width * height);
    const rowBytes = Math.ceil(width / 8);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const bit = ((image.data[y * rowBytes + (x >> 3)] ?? 0) >> (7 - (x & 7))) & 1;
        gray[y * width + x] = bit ? 255 : 0;
      }
    }
    return boxFilter(gray, width, height, width, layouts[4] as PixelLayout, maxSide);
  }
  const layout = layouts[image.kind];
  if (!layout) return undefined;
  const stride = image.stride ?? width * layout.step;
  if (stride < width * layout.step || image.data.length < stride * (height - 1) + width * layout.step) {
    return undefined;
  }
  const data = new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length);
  return boxFilter(data, width, height, stride, layout, maxSide);
}
