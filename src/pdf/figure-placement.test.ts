import { describe, expect, it } from 'vitest';
import { placeFigures } from './figure-placement.js';
import type { CollectedFigure } from './figures.js';
import type { TextBlock } from './layout-types.js';

/** A figure painted at `top`–`top + 150` on `page` (x 100–300), numbered in extraction order. */
const figure = (id: string, number: number, top: number, page = 1, x0 = 100, x1 = 300): CollectedFigure => ({
  id,
  page,
  number,
  width: 10,
  height: 10,
  image: new Uint8Array(),
  format: 'png',
  box: { objectId: id, x0, x1, top, bottom: top + 150 },
});

const block = (kind: TextBlock['kind'], text: string, top: number, page = 1, x0 = 100, x1 = 300) =>
  ({ kind, text, page, pages: [page], top, bottom: top + 20, x0, x1 }) satisfies TextBlock;

describe('placeFigures', () => {
  it('attaches a figure to the nearest labelled caption below it, with the label it prints', () => {
    const blocks = [
      block('paragraph', 'Body text.', 50),
      block('caption', 'Figure 2: What the plot shows.', 260),
      // A table's caption stands above its table: below a figure it is another float's.
      block('caption', 'Table 1: Not a figure.', 255),
    ];
    expect(placeFigures([figure('p1-1', 1, 100)], blocks)).toEqual([
      { id: 'p1-1', block: 1, caption: 'Figure 2: What the plot shows.', label: 'Figure 2' },
    ]);
  });

  // Regression: NAR's graphical abstract (no caption) took "Figure 1", so its Figure 6 read "Figure 7".
  it('leaves an image without a caption unlabelled, so the next figure keeps its printed number', () => {
    const blocks = [
      block('paragraph', 'Graphical abstract', 80),
      block('paragraph', 'Introduction text.', 400),
      block('caption', 'Figure 6. Binding of DNA plasmid to preformed assemblies.', 260, 8),
    ];
    const placed = placeFigures([figure('p1-1', 1, 100), figure('p8-1', 2, 100, 8)], blocks);
    expect(placed.map((each) => each.label ?? null)).toEqual([null, 'Figure 6']);
    expect(placed[0]).toEqual({ id: 'p1-1', block: 1 });
  });

  it('reads "Fig. S2" below a figure and "Table 3" above a table image', () => {
    const blocks = [
      block('caption', 'Fig. S2 | Supplementary robustness analysis.', 260),
      block('caption', 'Table 3: Scores of every system.', 360, 1, 100, 500),
    ];
    const placed = placeFigures([figure('p1-1', 1, 100), figure('p1-2', 2, 390, 1, 100, 500)], blocks);
    expect(placed.map((each) => each.label)).toEqual(['Fig. S2', 'Table 3']);
  });

  // Regression: PaperMage's Figure 3 shows another paper's page with its own "Figure 1." caption.
  it('never takes text painted inside another image as a caption', () => {
    const blocks = [
      block('caption', 'Figure 1. Revolt creates labels for unanimously labeled items.', 170, 1, 370, 500),
      block('caption', 'Figure 3: Illustrates how entities can be accessed.', 321, 1, 71, 526),
    ];
    const outer = figure('p1-1', 1, 72, 1, 220, 512);
    const inner = {
      ...figure('p1-2', 2, 90, 1, 396, 473),
      box: { objectId: 'p1-2', x0: 396, x1: 473, top: 90, bottom: 168 },
    };
    const placed = placeFigures([outer, inner], blocks);
    expect(placed.map((each) => each.label)).toEqual(['Figure 3', 'Figure 3']);
  });
});
