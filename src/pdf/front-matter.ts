import { isReferencesHeading } from '../bibliography/references.js';
import { readsLikeProse } from './bylines.js';
import type { TextBlock, TextLine } from './layout-types.js';

/**
 * Page 1 split by what a line may say about the document itself (decision 0050). A paper's own
 * DOI, arXiv id and dates stand in its front matter (above the abstract or the first paragraph)
 * and in its header and footer; a DOI in the body or in the reference list belongs to someone
 * else's paper.
 */
export interface FrontMatter {
  /** Lines before the first paragraph or section heading: title, byline, journal and date lines. */
  opening: TextLine[];
  /**
   * The header and footer bands (journal line, DOI, copyright, preprint notes), header first, then
   * the footer from the page's lowest line up; footnotes left out.
   */
  margins: TextLine[];
  /** Every line of page 1 before its reference list (a sidebar's "Received 10 February 2024"). */
  beforeReferences: TextLine[];
}

/** Where the body begins: the abstract, keywords or the first section. */
const bodyStart =
  /^\s*(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|keywords?|key\s?words|index terms|introduction|background|(?:\d+|i)\.?\s+introduction)\b/i;
/** A footnote at the foot of the page: a marker, then words ("1 Data are at https://doi.org/…"). */
const footnoteStart = /^\s*(?:\d{1,2}|[*∗†‡§¶#])\s*\p{L}/u;

/** Bands of the page, as fractions of its height, where running heads and footers are printed. */
const headerBand = 0.1;
const footerBand = 0.88;

export function frontMatterOf(
  firstPage: TextLine[],
  pageHeight: number,
  titleLines: TextLine[],
): FrontMatter {
  const referencesAt = firstPage.findIndex((line) => isReferencesHeading(line.text));
  const beforeReferences = referencesAt < 0 ? firstPage : firstPage.slice(0, referencesAt);
  const inBand = (line: TextLine) =>
    line.bottom <= headerBand * pageHeight || line.top >= footerBand * pageHeight;
  const titleTop = titleLines.length > 0 ? Math.min(...titleLines.map((line) => line.top)) : 0;
  const end = beforeReferences.findIndex(
    (line) =>
      !inBand(line) &&
      !titleLines.includes(line) &&
      line.top >= titleTop &&
      (bodyStart.test(line.text) || readsLikeProse(line)),
  );
  const opening = end < 0 ? beforeReferences : beforeReferences.slice(0, end);
  const header = firstPage.filter((line) => line.bottom <= headerBand * pageHeight);
  const footer = withoutFootnotes(firstPage.filter((line) => line.top >= footerBand * pageHeight));
  // The page's own footer is its lowest line; footnotes stand above it.
  return { opening, margins: [...header, ...footer.reverse()], beforeReferences };
}

/**
 * The footer band's lines less its footnotes: a line that opens with a marker ("1 The data are at")
 * and the lines set right under it in its type (a DOI a footnote cites is someone else's).
 */
function withoutFootnotes(lines: TextLine[]): TextLine[] {
  const sorted = [...lines].sort((a, b) => a.top - b.top);
  const kept: TextLine[] = [];
  let footnote: TextLine | undefined;
  for (const line of sorted) {
    const continues =
      footnote !== undefined &&
      Math.abs(line.size - footnote.size) < 0.5 &&
      line.top - footnote.bottom < 1.5 * line.size &&
      line.x0 >= footnote.x0 - 2 * line.size &&
      line.x0 < footnote.x1;
    if (footnoteStart.test(line.text) || continues) footnote = line;
    else {
      footnote = undefined;
      kept.push(line);
    }
  }
  return kept;
}

const doiPattern = /\b(10\.\d{4,9}\/[^\s"<>{}]+)/g;
const arxivPattern = /arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7}(?:v\d+)?)/gi;

/** A DOI as found in running text: trailing punctuation dropped. */
export function cleanDoi(doi: string): string {
  return doi.replace(/[.,;:)\]]+$/, '');
}

/** Every DOI in a text, in order. */
export function doisIn(text: string): string[] {
  return [...text.matchAll(doiPattern)].map((match) => cleanDoi(match[1] ?? ''));
}

/** Every arXiv id written as `arXiv:…` in a text, in order. */
export function arxivIdsIn(text: string): string[] {
  return [...text.matchAll(arxivPattern)].map((match) => match[1] ?? '');
}

/**
 * The DOIs and arXiv ids the document's reference list cites (lower case): they name other works,
 * so none of them is the document's own, wherever else it appears.
 */
export function citedIdentifiers(blocks: TextBlock[]): Set<string> {
  const cited = new Set<string>();
  let inReferences = false;
  for (const block of blocks) {
    if (block.kind === 'heading') inReferences = isReferencesHeading(block.text);
    if (!inReferences || block.kind === 'heading') continue;
    // A DOI broken over two lines is joined with a space after "doi.org/" or inside it.
    const text = block.text.replace(/(doi\.org\/|doi:)\s+/gi, '$1');
    for (const doi of doisIn(text)) cited.add(doi.toLowerCase());
    for (const id of arxivIdsIn(text)) cited.add(id.toLowerCase());
  }
  return cited;
}

/**
 * Whether an identifier read from page 1 is one the reference list cites, or the start of one (a
 * DOI broken at a line end on page 1 is read in part there).
 */
export function isCited(identifier: string, cited: Set<string>): boolean {
  const key = identifier.toLowerCase();
  for (const other of cited) if (other.startsWith(key)) return true;
  return false;
}
