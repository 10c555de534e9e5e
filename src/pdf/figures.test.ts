import { describe, expect, it } from 'vitest';
import { FigureCollector, toPixels } from './figures.js';

describe('toPixels', () => {
  it('unpacks 1-bit gray rows padded to bytes', () => {
    // 10 pixels a row: 2 bytes per row; 1 bits are white.
    const data = new Uint8Array([0b10100000, 0b01000000, 0b11111111, 0b11000000]);
    const pixels = toPixels({ width: 10, height: 2, kind: 1, data }, 2000);
    expect(pixels?.channels).toBe(1);
    expect([...(pixels?.data ?? [])]).toEqual([
      255, 0, 255, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    ]);
  });

  it('box-filters large images down to the maximum side', () => {
    const width = 9;
    const height = 6;
    // RGB: red channel is the column index × 10, green the row index × 10, blue constant.
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) data.set([x * 10, y * 10, 200], (y * width + x) * 3);
    }
    const pixels = toPixels({ width, height, kind: 2, data }, 3);
    expect(pixels?.width).toBe(3);
    expect(pixels?.height).toBe(2);
    // Output (1, 1) averages columns 3–5 and rows 3–5.
    expect([...(pixels?.data.subarray(12, 15) ?? [])]).toEqual([40, 40, 200]);
  });
});

describe('FigureCollector', () => {
  const image = (seed: number) => ({
    width: 64,
    height: 64,
    kind: 2,
    data: new Uint8Array(64 * 64 * 3).map((_, index) => (index * seed) % 256),
  });
  const box = (objectId: string, top = 100) => ({ objectId, x0: 100, x1: 300, top, bottom: top + 150 });
  const page = { width: 612, height: 792 };

  it('keeps figures, drops icons, page scans and logos repeated on several pages', async () => {
    const collector = new FigureCollector();
    const pixels: Record<string, ReturnType<typeof image>> = {
      figure: image(7),
      logo: image(13),
      logoAgain: image(13),
      icon: image(3),
      scan: image(5),
    };
    const read = async (id: string) => pixels[id] ?? null;
    await collector.addPage(
      1,
      page,
      [box('logo', 20), box('figure'), { ...box('icon'), x1: 120, bottom: 120 }],
      read,
    );
    await collector.addPage(
      2,
      page,
      [box('logoAgain', 20), { objectId: 'scan', x0: 0, x1: 612, top: 0, bottom: 792 }],
      read,
    );
    const figures = collector.finish();
    expect(figures.map((figure) => [figure.id, figure.number, figure.page])).toEqual([['p1-1', 1, 1]]);
    expect([...(figures[0]?.image.subarray(1, 4) ?? [])]).toEqual([80, 78, 71]);
  });
});
