import { startsCaption } from '../domain/figure-labels.js';
import { type BodyStyle, headingLevel, isStrongHeading, numberedHeading } from './headings.js';
import type { BlockKind, TextBlock, TextLine } from './layout-types.js';
import { lineSpans } from './line-anchors.js';
import { collectVocabulary, joinLines, normalizeText } from './text-cleaning.js';

interface DraftBlock {
  kind: BlockKind;
  level?: number;
  lines: TextLine[];
}

const bulletStart = /^(?:[•▪◦‣∙●○■–]|\(\w{1,3}\)|\d{1,2}[.)]|\[\d{1,3}\])\s/;

/**
 * Turns lines in reading order into headings, paragraphs and captions: a new block starts at a
 * heading, a change of font size, a vertical gap wider than the document's usual leading, an
 * indented first line, after a short line that ends a sentence, or at a bullet. A paragraph that
 * runs off the bottom of a column (or page) without ending its sentence continues in the next one.
 */
export function buildBlocks(lines: TextLine[], body: BodyStyle, title: TextLine[] = []): TextBlock[] {
  const leading = leadingByPage(lines, body);
  const titleLines = new Set(title);
  const drafts: DraftBlock[] = [];
  let current: DraftBlock | undefined;
  let previous: TextLine | undefined;
  lines.forEach((line, index) => {
    let level = titleLines.has(line) ? 1 : headingLevel(line, body);
    if (level === undefined && isStyledHeading(lines, index, previous, body, current)) level = 3;
    // A larger-type line right under a paragraph line of the same type continues it (author lists).
    if (
      level !== undefined &&
      level > 1 &&
      current?.kind === 'paragraph' &&
      previous?.font === line.font &&
      Math.abs(previous.size - line.size) < 0.05 * line.size &&
      isDirectlyBelow(previous, line, 1.8 * line.size) &&
      !numberedHeading.test(line.text)
    ) {
      level = undefined;
    }
    // A heading wraps: the next line in its type, right under it, belongs to it (unless numbered).
    const continuesHeading =
      current !== undefined &&
      current.kind === 'heading' &&
      previous !== undefined &&
      level !== 1 &&
      !numberedHeading.test(line.text) &&
      (line.font === previous.font || titleLines.has(previous)) &&
      Math.abs(line.size - previous.size) < 0.1 * line.size &&
      (line.font !== body.font || line.size > body.size * 1.1) &&
      isDirectlyBelow(previous, line, 1.8 * line.size);
    if (continuesHeading && current) {
      current.lines.push(line);
    } else if (level !== undefined) {
      const heading = current?.kind === 'heading' && current.level === 1 && level === 1;
      if (heading && current) current.lines.push(line);
      else {
        current = { kind: 'heading', level, lines: [line] };
        drafts.push(current);
      }
    } else if (
      !current ||
      current.kind === 'heading' ||
      startsBlock(current, previous, line, leading.get(line.page) ?? body.size * 1.2)
    ) {
      current = { kind: startsCaption(line.text) ? 'caption' : 'paragraph', lines: [line] };
      drafts.push(current);
    } else {
      current.lines.push(line);
    }
    previous = line;
  });

  demoteFrontMatter(drafts);
  const merged = mergeInterruptedParagraphs(drafts);
  const vocabulary = collectVocabulary(merged.map((draft) => draft.lines.map((line) => line.text)));
  return merged.map((draft) => toBlock(draft, vocabulary)).filter((block) => block.text.length > 0);
}

/**
 * An unnumbered heading set in body size but another font (bold): a short line wholly in that
 * font, not ending like a sentence, after a finished paragraph, with a body-text line right under it.
 */
function isStyledHeading(
  lines: TextLine[],
  index: number,
  previous: TextLine | undefined,
  body: BodyStyle,
  current: DraftBlock | undefined,
): boolean {
  const line = lines[index] as TextLine;
  if (line.font === body.font || !line.uniformFont) return false;
  if (Math.abs(line.size - body.size) > 0.12 * body.size) return false;
  if (!/^[\p{Lu}\d]/u.test(line.text)) return false;
  // The heading may wrap onto up to two more lines of its font; then body text must follow.
  let last = line;
  let text = line.text;
  let next = lines[index + 1];
  for (let extra = 0; extra < 2 && next?.font === line.font && next.uniformFont; extra++) {
    if (!isDirectlyBelow(last, next, 2 * body.size)) return false;
    text += ` ${next.text}`;
    last = next;
    next = lines[index + extra + 2];
  }
  if (text.length < 3 || text.length > 160 || text.split(' ').length > 20) return false;
  if (/[.,;:]$/.test(text)) return false;
  if ((text.match(/\p{L}/gu)?.length ?? 0) < 0.6 * text.replace(/\s/g, '').length) return false;
  if (!next || next.font !== body.font || Math.abs(next.size - body.size) > 0.05 * body.size) return false;
  if (!isDirectlyBelow(last, next, 2.5 * body.size) || Math.abs(next.x0 - line.x0) > 3 * body.size)
    return false;
  return (
    !previous ||
    current?.kind === 'heading' ||
    /[.!?:]["'”’)\]]?$/.test(previous.text) ||
    !isDirectlyBelow(previous, line, 2.5 * body.size)
  );
}

function startsBlock(block: DraftBlock, previous: TextLine | undefined, line: TextLine, leading: number) {
  if (!previous) return true;
  if (Math.abs(line.size - previous.size) > 0.15 * Math.max(line.size, previous.size)) return true;
  if (bulletStart.test(line.text) || startsCaption(line.text)) return true;
  const endsSentence = /[.!?:]["'”’)\]]?$/.test(previous.text);
  if (!isDirectlyBelow(previous, line, 3 * line.size)) return endsSentence;
  const gap = line.bottom - previous.bottom;
  // The paragraph's own line spacing, once it has one, beats the page's (double-spaced preprints
  // have single-spaced references and captions).
  const last = block.lines.length >= 2 ? block.lines[block.lines.length - 2] : undefined;
  const ownGap =
    last && isDirectlyBelow(last, previous, 3 * line.size) ? previous.bottom - last.bottom : undefined;
  if (gap > Math.max((ownGap ?? leading) * 1.4, line.size * 1.5)) return true;
  const left = Math.min(...block.lines.map((each) => each.x0));
  const right = Math.max(...block.lines.map((each) => each.x1));
  const short = right - previous.x1 > 3 * line.size;
  // An indented line starts a paragraph when the one before it finished (not a list item's hang).
  const indented = line.x0 - left > 0.8 * line.size && line.x0 - previous.x0 > 0.8 * line.size;
  return (indented && (endsSentence || short)) || (endsSentence && short);
}

/**
 * Between the title and the first real section heading of page 1 ("Abstract", "1 Introduction")
 * come authors and affiliations, often set large or bold: they are paragraphs, not headings.
 */
function demoteFrontMatter(drafts: DraftBlock[]): void {
  const firstPage = drafts[0]?.lines[0]?.page;
  const end = drafts.findIndex(
    (draft) =>
      draft.kind === 'heading' &&
      draft.level !== 1 &&
      isStrongHeading(draft.lines.map((line) => line.text).join(' ')),
  );
  if (end < 0 || drafts[end]?.lines[0]?.page !== firstPage) return;
  for (const draft of drafts.slice(0, end)) {
    if (draft.kind === 'heading' && draft.level !== 1) {
      draft.kind = 'paragraph';
      delete draft.level;
    }
  }
}

/**
 * A paragraph cut by a float (figure labels, a caption, footnotes, a licence box at the page
 * bottom) continues after it: when a paragraph stops mid-sentence and one of the next few blocks,
 * past nothing but non-heading blocks, starts in lower case in the same type, the two are joined
 * and the float moves after the paragraph.
 */
function mergeInterruptedParagraphs(drafts: DraftBlock[]): DraftBlock[] {
  const result = [...drafts];
  for (let index = 0; index < result.length; index++) {
    const paragraph = result[index] as DraftBlock;
    if (paragraph.kind !== 'paragraph') continue;
    const last = paragraph.lines[paragraph.lines.length - 1] as TextLine;
    if (/[.!?:]["'”’)\]]?$/.test(last.text)) continue;
    for (let next = index + 1; next < Math.min(result.length, index + 9); next++) {
      const candidate = result[next] as DraftBlock;
      if (candidate.kind === 'heading') break;
      if (candidate.kind === 'caption') continue;
      const first = candidate.lines[0] as TextLine;
      const sameType = Math.abs(first.size - last.size) < 0.05 * last.size && first.font === last.font;
      if (sameType && candidate.kind === 'paragraph' && /^\p{Ll}/u.test(first.text)) {
        if (next === index + 1) break;
        paragraph.lines.push(...candidate.lines);
        result.splice(next, 1);
        index--;
        break;
      }
      if (sameType) break;
    }
  }
  return result;
}

/** `line` is on the same page, below `previous` within `maximumGap`, and overlaps it horizontally. */
function isDirectlyBelow(previous: TextLine, line: TextLine, maximumGap: number): boolean {
  if (line.page !== previous.page) return false;
  const gap = line.bottom - previous.bottom;
  if (gap <= 0 || gap > maximumGap) return false;
  return Math.min(line.x1, previous.x1) - Math.max(line.x0, previous.x0) > 0;
}

/** Median baseline distance between consecutive body lines of one column, per page. */
function leadingByPage(lines: TextLine[], body: BodyStyle): Map<number, number> {
  const gapsByPage = new Map<number, number[]>();
  for (let index = 1; index < lines.length; index++) {
    const previous = lines[index - 1] as TextLine;
    const line = lines[index] as TextLine;
    if (Math.abs(line.size - body.size) > 0.5 || Math.abs(previous.size - body.size) > 0.5) continue;
    if (!isDirectlyBelow(previous, line, 3 * body.size)) continue;
    const gaps = gapsByPage.get(line.page) ?? [];
    gaps.push(line.bottom - previous.bottom);
    gapsByPage.set(line.page, gaps);
  }
  const leading = new Map<number, number>();
  for (const [page, gaps] of gapsByPage) {
    gaps.sort((a, b) => a - b);
    leading.set(page, gaps[Math.floor(gaps.length / 2)] ?? body.size * 1.2);
  }
  return leading;
}

function toBlock(draft: DraftBlock, vocabulary: Set<string>): TextBlock {
  const first = draft.lines[0] as TextLine;
  const onFirstPage = draft.lines.filter((line) => line.page === first.page);
  const text =
    draft.kind === 'heading'
      ? normalizeText(draft.lines.map((line) => line.text).join(' '))
      : normalizeText(
          joinLines(
            draft.lines.map((line) => line.text),
            vocabulary,
          ),
        );
  return {
    kind: draft.kind,
    ...(draft.level === undefined ? {} : { level: draft.level }),
    text,
    page: first.page,
    pages: [...new Set(draft.lines.map((line) => line.page))],
    top: Math.min(...onFirstPage.map((line) => line.top)),
    bottom: Math.max(...onFirstPage.map((line) => line.bottom)),
    x0: Math.min(...onFirstPage.map((line) => line.x0)),
    x1: Math.max(...onFirstPage.map((line) => line.x1)),
    lineSpans: lineSpans(text, draft.lines),
  };
}
