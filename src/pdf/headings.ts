import type { TextLine } from './layout-types.js';

/** The document's body text style: the size and font carrying the most characters. */
export interface BodyStyle {
  size: number;
  font: string;
}

export function bodyStyleOf(lines: TextLine[]): BodyStyle {
  const bySize = new Map<number, number>();
  const byFont = new Map<string, number>();
  for (const line of lines) {
    const size = Math.round(line.size * 2) / 2;
    bySize.set(size, (bySize.get(size) ?? 0) + line.text.length);
    byFont.set(line.font, (byFont.get(line.font) ?? 0) + line.text.length);
  }
  const top = <K>(map: Map<K, number>, fallback: K) =>
    [...map].sort((a, b) => b[1] - a[1])[0]?.[0] ?? fallback;
  return { size: top(bySize, 10), font: top(byFont, '') };
}

const sectionNames = new Set([
  'abstract',
  'introduction',
  'background',
  'related work',
  'related works',
  'method',
  'methods',
  'methodology',
  'materials and methods',
  'experiments',
  'experimental setup',
  'evaluation',
  'results',
  'results and discussion',
  'discussion',
  'conclusion',
  'conclusions',
  'future work',
  'limitations',
  'references',
  'bibliography',
  'acknowledgements',
  'acknowledgments',
  'acknowledgement',
  'acknowledgment',
  'appendix',
  'appendices',
  'supplementary material',
  'summary',
  'data availability',
  'funding',
  'author contributions',
  'ethics statement',
  'competing interests',
  'conflict of interest',
  'declarations',
  'availability of data and materials',
]);

/** "1 Introduction", "2.1. Method", "IV. RESULTS", "A. Proofs", "Appendix B Details". */
export const numberedHeading =
  /^(?:(\d{1,2}(?:\.\d{1,2}){0,3})\.?|([IVX]{1,5})\.|([A-H])\.|(?:appendix|chapter|section)\s+[A-Z\d]{1,2}[.:]?)\s+(\p{Lu}|\p{Lt})/u;

/** Numbered ("2.1 Method") or a well-known section name ("Abstract", "References"). */
export function isStrongHeading(text: string): boolean {
  const bare = text
    .trim()
    .toLowerCase()
    .replace(/^[\d.\s]+|[:.]$/g, '')
    .trim();
  // Letter numbering ("A. Proofs") is left out: it reads like an initial ("D. White").
  const numbered = numberedHeading.exec(text.trim());
  return (numbered !== null && numbered[3] === undefined) || sectionNames.has(bare);
}

/**
 * The markdown heading level of a line (2 = section, 3 = subsection, 4 deeper), or undefined when
 * it reads as body text. A heading is short, has letters, does not end like a sentence, and either
 * is set larger than the body, or is set in another font (usually bold) and is numbered or a
 * well-known section name.
 */
export function headingLevel(line: TextLine, body: BodyStyle): number | undefined {
  const text = line.text.trim();
  const words = text.split(/\s+/).length;
  if (text.length < 3 || text.length > 120 || words > 14) return undefined;
  if (/[,;]$/.test(text) || (/[.]$/.test(text) && !/^\S+\.$/.test(text))) return undefined;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters < 3 || letters < 0.5 * text.replace(/\s/g, '').length) return undefined;

  const larger = line.size >= body.size * 1.12;
  const otherFont = line.font !== body.font || larger;
  const bare = text
    .toLowerCase()
    .replace(/^[\d.\s]+|[:.]$/g, '')
    .trim();
  // Author lines are set large or bold too: "Jane Roe,1* John Doe 2", "D. White∗,‡".
  const authorLike = /[*@†‡∗§¶⋄]|\p{L},?\d|,.*,/u.test(text);
  const match = numberedHeading.exec(text);
  if (match && otherFont && !authorLike) {
    if (match[1]) return Math.min(4, 2 + (match[1].split('.').length - 1));
    if (match[2]) return 2;
    return 3;
  }
  if (sectionNames.has(bare) && (otherFont || text === text.toUpperCase())) return 2;
  if (larger && words <= 12 && /^\p{Lu}/u.test(text) && !authorLike) return 2;
  return undefined;
}
