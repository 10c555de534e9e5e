import type { PageText } from './engine.js';
import type { TextRun } from './layout-types.js';
import type { PdfiumRuntime } from './pdfium-loader.js';

/**
 * The affine map from a page's user space (PDF points, y up) to the pipeline's page space (top-left
 * origin, y down, after the page's /Rotate and crop box), as pdf.js' viewport at scale 1 gives it:
 * X = a·x + c·y + e, Y = b·x + d·y + f.
 */
export interface PageView {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
  width: number;
  height: number;
}

export function pageView(runtime: PdfiumRuntime, page: number): PageView {
  const { api, scratch } = runtime;
  let left = 0;
  let bottom = 0;
  let right = 612;
  let top = 792;
  // FS_RECTF { left, top, right, bottom }: the crop box clipped to the media box.
  if (api.FPDF_GetPageBoundingBox(page, scratch)) {
    const box = scratchRect(runtime);
    left = Math.min(box.left, box.right);
    right = Math.max(box.left, box.right);
    bottom = Math.min(box.top, box.bottom);
    top = Math.max(box.top, box.bottom);
  }
  const width = right - left;
  const height = top - bottom;
  switch (api.FPDFPage_GetRotation(page) & 3) {
    case 1: // 90° clockwise: the left edge becomes the top.
      return { a: 0, b: 1, c: 1, d: 0, e: -bottom, f: -left, width: height, height: width };
    case 2:
      return { a: -1, b: 0, c: 0, d: 1, e: right, f: -bottom, width, height };
    case 3:
      return { a: 0, b: -1, c: -1, d: 0, e: top, f: right, width: height, height: width };
    default:
      return { a: 1, b: 0, c: 0, d: -1, e: -left, f: top, width, height };
  }
}

/** Characters that end a run: spaces of every width, tabs, line breaks. */
function isBreak(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0xa0 ||
    (code >= 0x2000 && code <= 0x200b) ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/**
 * A page's text as positioned runs, from PDFium's text page. The page's text is fetched once; a run
 * is a stretch of characters of one text object (one show operator) up to a space or line break
 * (PDFium's own, inserted where it sees a gap, or the document's). Per run, the first character
 * gives the origin, the transformation and the font size, the last one the right edge: the
 * character boxes in between are never asked for. Runs are words rather than pdf.js' whole show
 * operations; `spaceAfter` carries the word break, and the line builder joins them the same way.
 * PDFium marks a hyphen that ends a line with U+FFFE (U+0002 per character): it is a hyphen or a
 * soft hyphen again here, so de-hyphenation decides as for pdf.js. Presentation forms (ligatures) are NFKC-normalised
 * as pdf.js does.
 */
export function readPdfiumText(runtime: PdfiumRuntime, textPage: number, view: PageView): PageText {
  const { api } = runtime;
  const runs: TextRun[] = [];
  const rotatedText: string[] = [];
  const count = api.FPDFText_CountChars(textPage);
  if (count <= 0) return { width: view.width, height: view.height, runs, rotatedText };
  const chars = pageChars(runtime, textPage, count);
  const fonts = new FontNames(runtime);
  const scratch = runtime.scratch;
  let previousRotated = false;

  const flush = (first: number, last: number, object: number, spaceAfter: boolean) => {
    let text =
      typeof chars === 'string' ? chars.slice(first, last + 1) : chars.slice(first, last + 1).join('');
    if (/[\uf900-\ufffd]/.test(text)) text = text.normalize('NFKC');
    api.FPDFText_GetMatrix(textPage, first, scratch);
    const ma = runtime.scratchFloat(0);
    const mb = runtime.scratchFloat(1);
    const mc = runtime.scratchFloat(2);
    const md = runtime.scratchFloat(3);
    // The baseline's direction in page space: left to right, level.
    const a = view.a * ma + view.c * mb;
    const b = view.b * ma + view.d * mb;
    const d = view.b * mc + view.d * md;
    api.FPDFText_GetCharOrigin(textPage, first, scratch, scratch + 8);
    const f64 = runtime.f64;
    const originX = f64[scratch >> 3] as number;
    const originY = f64[(scratch >> 3) + 1] as number;
    const x = view.a * originX + view.c * originY + view.e;
    const y = view.b * originX + view.d * originY + view.f;
    api.FPDFText_GetLooseCharBox(textPage, first, scratch);
    const firstBox = verticalExtent(runtime, view);
    // Upright: y grows up the glyph. PDFium's matrix includes the font's own, which in Type 3 fonts
    // (bitmap TeX fonts) may flip y a second time; their em box, mostly above the baseline, tells.
    const height = firstBox.bottom - firstBox.top;
    const upright = d < 0 || (height > 0 && y - firstBox.top > firstBox.bottom - y);
    if (!(a > 0 && Math.abs(b) <= 0.01 * a && upright)) {
      // Words of one angled line (an arXiv stamp) stay one string, as pdf.js gives it.
      if (previousRotated && rotatedText.length > 0) rotatedText[rotatedText.length - 1] += ` ${text}`;
      else rotatedText.push(text);
      previousRotated = true;
      return;
    }
    previousRotated = false;
    let size = api.FPDFText_GetFontSize(textPage, first) * Math.abs(d);
    // Type 3 fonts scale glyphs by their font matrix, which the size does not include: their box
    // (as pdf.js estimates them too) stands in when the two disagree wildly.
    if (height > 0 && !(size > height / 3 && size < height * 3)) size = height;
    if (last !== first) api.FPDFText_GetLooseCharBox(textPage, last, scratch);
    // The page-space right edge is the largest X of the box's corners (any rotation).
    const edge = rightEdge(runtime, view);
    // Every run has the same fields (spaceAfter false too: readers test `=== true`), so the line
    // builder's property reads see one object shape.
    runs.push({ text, x, y, width: Math.max(0, edge - x), size, font: fonts.of(object), spaceAfter });
  };

  let first = -1;
  let object = 0;
  for (let index = 0; index < count; index++) {
    const code = typeof chars === 'string' ? chars.charCodeAt(index) : (chars[index] ?? '').charCodeAt(0);
    if (isBreak(code)) {
      const lineBreak = code === 0x0a || code === 0x0d;
      if (first >= 0) flush(first, index - 1, object, !lineBreak);
      if (lineBreak) previousRotated = false;
      first = -1;
      continue;
    }
    const owner = api.FPDFText_GetTextObject(textPage, index);
    if (first >= 0 && owner !== object) {
      flush(first, index - 1, object, false);
      first = -1;
    }
    if (first < 0) {
      first = index;
      object = owner;
    }
  }
  if (first >= 0) flush(first, count - 1, object, false);
  fonts.release();
  return { width: view.width, height: view.height, runs, rotatedText };
}

/** The FS_RECTF { left, top, right, bottom } PDFium wrote into the scratch area. */
function scratchRect(runtime: PdfiumRuntime): { left: number; top: number; right: number; bottom: number } {
  return {
    left: runtime.scratchFloat(0),
    top: runtime.scratchFloat(1),
    right: runtime.scratchFloat(2),
    bottom: runtime.scratchFloat(3),
  };
}

/** Top and bottom (page space) of the character box in the scratch area. */
function verticalExtent(runtime: PdfiumRuntime, view: PageView): { top: number; bottom: number } {
  const { left, top, right, bottom } = scratchRect(runtime);
  const ys = [
    view.b * left + view.d * top,
    view.b * right + view.d * top,
    view.b * left + view.d * bottom,
    view.b * right + view.d * bottom,
  ];
  return { top: Math.min(...ys) + view.f, bottom: Math.max(...ys) + view.f };
}

/** The largest page-space X of the character box in the scratch area. */
function rightEdge(runtime: PdfiumRuntime, view: PageView): number {
  const { left, top, right, bottom } = scratchRect(runtime);
  return (
    Math.max(
      view.a * left + view.c * top,
      view.a * right + view.c * top,
      view.a * left + view.c * bottom,
      view.a * right + view.c * bottom,
    ) + view.e
  );
}

/**
 * The page's characters by index: the whole text in one call when it maps one UTF-16 unit to each
 * character (nearly always), else character by character (a glyph outside the BMP, or one without
 * Unicode that PDFium leaves out of the text).
 */
function pageChars(runtime: PdfiumRuntime, textPage: number, count: number): string | string[] {
  const { api } = runtime;
  // Room for a surrogate pair per character and the terminator.
  const buffer = api.malloc((count * 2 + 1) * 2);
  let text = '';
  try {
    const written = api.FPDFText_GetText(textPage, 0, count, buffer);
    if (written > 0) text = Buffer.from(runtime.u8.buffer, buffer, (written - 1) * 2).toString('utf16le');
  } finally {
    api.free(buffer);
  }
  if (text.length === count) {
    return text.includes('\ufffe')
      ? text.replace(/\ufffe/g, (_, index: number) =>
          lineEndHyphen(runtime, textPage, index, text[index - 1]),
        )
      : text;
  }
  const chars: string[] = new Array(count);
  for (let index = 0; index < count; index++) {
    const code = api.FPDFText_GetUnicode(textPage, index);
    chars[index] =
      code === 2
        ? lineEndHyphen(runtime, textPage, index, chars[index - 1])
        : code > 0 && code <= 0x10ffff
          ? String.fromCodePoint(code)
          : '';
  }
  return chars;
}

/**
 * What PDFium's line-end hyphen marker stood for: a hyphen drawn at the end of the line ("treat-"),
 * or a soft hyphen that draws nothing (after a hard one: "SARS-" + U+00AD). PDFium replaces either
 * with the marker; a soft hyphen keeps de-hyphenation from joining a compound's hard hyphen twice.
 */
function lineEndHyphen(
  runtime: PdfiumRuntime,
  textPage: number,
  index: number,
  before: string | undefined,
): string {
  if (before === '-' || before === '\u2010' || before === '\u2011') return '\u00ad';
  const { api, scratch } = runtime;
  if (!api.FPDFText_GetLooseCharBox(textPage, index, scratch)) return '-';
  const { left, right } = scratchRect(runtime);
  const width = right - left;
  return width > 0.01 ? '-' : '\u00ad';
}

/**
 * A key per font for the layout stages (equal keys, same font): the base font name with its weight
 * and flags, so that fonts of one name but another style (Type 3 fonts are often all called the
 * same) stay apart. Cached per page by PDFium's font handle.
 */
class FontNames {
  readonly #runtime: PdfiumRuntime;
  readonly #byFont = new Map<number, string>();
  #buffer = 0;

  constructor(runtime: PdfiumRuntime) {
    this.#runtime = runtime;
  }

  of(textObject: number): string {
    const { api } = this.#runtime;
    const font = textObject ? api.FPDFTextObj_GetFont(textObject) : 0;
    const known = this.#byFont.get(font);
    if (known !== undefined) return known;
    let name = '';
    if (font) {
      this.#buffer ||= api.malloc(256);
      const length = api.FPDFFont_GetBaseFontName(font, this.#buffer, 256);
      if (length > 1 && length <= 256) {
        name = Buffer.from(this.#runtime.u8.buffer, this.#buffer, length - 1).toString('utf8');
      }
      name = `${name}/${api.FPDFFont_GetWeight(font)}/${api.FPDFFont_GetFlags(font)}`;
    }
    this.#byFont.set(font, name);
    return name;
  }

  release(): void {
    if (this.#buffer) this.#runtime.api.free(this.#buffer);
    this.#buffer = 0;
  }
}
