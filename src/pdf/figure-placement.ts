import { captionLabel, labelKind } from '../domain/figure-labels.js';
import type { CollectedFigure } from './figures.js';
import type { ImagePlacement, TextBlock } from './layout-types.js';

/** Where a figure belongs in the text, and the caption (with its printed label) it takes. */
export interface PlacedFigure {
  id: string;
  /** Index of the block the figure belongs to (its caption's, or the nearest one). */
  block: number;
  caption?: string;
  /** The caption's printed label ("Figure 6", "Fig. S2", "Table 3"); absent without a caption. */
  label?: string;
}

/**
 * Links figures to the text: a figure takes the nearest labelled caption on its page ("Figure 6",
 * "Table 3": below the image preferred for a figure, above it for a table) and belongs to that
 * caption's block; without a caption it belongs to the first block painted below its top on the
 * same page, else to the last block before it. Text painted inside an image's box is part of that
 * image (a screenshot of another paper with its own "Figure 1."), never a caption.
 */
export function placeFigures(figures: CollectedFigure[], blocks: TextBlock[]): PlacedFigure[] {
  const boxesByPage = new Map<number, ImagePlacement[]>();
  for (const { page, box } of figures) boxesByPage.set(page, [...(boxesByPage.get(page) ?? []), box]);
  const labels = blocks.map((block) =>
    block.kind === 'caption' && !insideAny(block, boxesByPage.get(block.page) ?? [])
      ? captionLabel(block.text)
      : undefined,
  );
  return figures.map((figure) => {
    const { box, page } = figure;
    let best: { index: number; score: number } | undefined;
    blocks.forEach((block, index) => {
      const label = labels[index];
      if (block.page !== page || label === undefined) return;
      const below = block.top - box.bottom;
      const above = box.top - block.bottom;
      const [near, far] = labelKind(label) === 'table' ? [above, below] : [below, above];
      const overlaps = Math.min(block.x1, box.x1) - Math.max(block.x0, box.x0) > 0;
      const distance = near >= -10 ? near : far >= -10 ? far + 40 : Number.POSITIVE_INFINITY;
      const score = distance + (overlaps ? 0 : 200);
      if (score < 400 && (!best || score < best.score)) best = { index, score };
    });
    if (best) {
      const caption = blocks[best.index]?.text;
      const label = labels[best.index];
      return {
        id: figure.id,
        block: best.index,
        ...(caption ? { caption } : {}),
        ...(label ? { label } : {}),
      };
    }
    let block = blocks.findIndex((candidate) => candidate.page === page && candidate.top >= box.top);
    if (block < 0) block = findLastIndex(blocks, (candidate) => candidate.page <= page);
    return { id: figure.id, block: Math.max(0, block) };
  });
}

/** The block's middle lies within one of the image boxes (2 points of slack). */
function insideAny(block: TextBlock, boxes: ImagePlacement[]): boolean {
  const x = (block.x0 + block.x1) / 2;
  const y = (block.top + block.bottom) / 2;
  return boxes.some((box) => x > box.x0 - 2 && x < box.x1 + 2 && y > box.top - 2 && y < box.bottom + 2);
}

function findLastIndex<T>(items: T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index] as T)) return index;
  return -1;
}
