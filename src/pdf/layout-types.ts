/**
 * Geometry types shared by the layout stages (lines → reading order → blocks → chunks). All
 * coordinates are PDF points in page space with the origin at the TOP-left (y grows downwards),
 * after the page's rotation and crop box are applied.
 */

/** One run of text as pdf.js positions it (usually a word or a whole line of one font). */
export interface TextRun {
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline. */
  y: number;
  width: number;
  /** Font size (height of the em square). */
  size: number;
  /** pdf.js' document-wide font id; equal ids mean the same font. */
  font: string;
  /** A space follows in the content stream (it may take no room on the page). */
  spaceAfter?: boolean;
}

/** A horizontal line segment of text: runs on one baseline with no column-sized gap between them. */
export interface TextLine {
  text: string;
  x0: number;
  x1: number;
  /** Top of the em box of its largest run. */
  top: number;
  /** Baseline. */
  bottom: number;
  /** Dominant font size (by characters). */
  size: number;
  /** Dominant font (by characters). */
  font: string;
  /** Every run with visible characters is in `font`. */
  uniformFont: boolean;
  page: number;
}

/** Where an image is painted, in page space, and how to fetch its pixels. */
export interface ImagePlacement {
  objectId: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
}

export type BlockKind = 'heading' | 'paragraph' | 'caption';

/** A paragraph, heading or figure caption in reading order, after cleaning. */
export interface TextBlock {
  kind: BlockKind;
  /** For headings: 1 = title, 2 = section, 3 = subsection. */
  level?: number;
  text: string;
  /** Page of the first line. */
  page: number;
  /** Every page the block's lines are on (a paragraph may run onto the next page). */
  pages: number[];
  top: number;
  bottom: number;
  x0: number;
  x1: number;
  /**
   * Where each of the block's lines is printed, with its span in the block's letter stream (see
   * `letterKey`): spans count letters and digits only, so they survive re-spacing, de-hyphenation,
   * markdown prefixes and a replaced title.
   */
  lineSpans?: LineSpan[];
}

/** One printed line of a block: its box on the page and its letters' span `[start, end)` in the block. */
export interface LineSpan {
  page: number;
  x0: number;
  top: number;
  x1: number;
  bottom: number;
  start: number;
  end: number;
}
