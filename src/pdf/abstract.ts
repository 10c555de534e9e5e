import { isStrongHeading } from './headings.js';
import type { TextBlock } from './layout-types.js';

/**
 * The abstract a document prints in its front matter (decision 0050): the paragraphs under its
 * "Abstract" heading (or after an inline "Abstract." label), up to the next heading, a labelled
 * part that is not the abstract ("Keywords", "Author Summary", "IMPORTANCE", "Graphical
 * abstract"), a footnote or anything that is not prose. Without a label, REVTeX's unlabelled
 * abstract: the one long paragraph between the byline and a first "Introduction" heading on page 1.
 * Paragraphs are joined with a space, as other sources' abstracts are.
 */
export function readAbstract(blocks: TextBlock[]): string | undefined {
  const labelled = labelledAbstract(blocks);
  if (labelled !== undefined) return labelled;
  return unlabelledAbstract(blocks);
}

/** Abstracts are printed early: on the first pages of a paper, after a thesis's title pages. */
const frontPages = 6;
const maximumLength = 6000;
const abstractHeading =
  /^(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|résumé|resumen|zusammenfassung|요\s?약|초\s?록|摘\s?要|要\s?旨)\s*[.:]?$/i;
const inlineLabel = /^(?:Abstract|ABSTRACT)\s*[.:—–-]?\s+(?=\p{Lu}|\d|["“(])/u;
/** Labelled parts that follow an abstract and are not part of it. */
const partAfterAbstract =
  /^(?:keywords?|key\s?words|index terms|author summary|importance|significance(?: statement)?|graphical abstract|ccs concepts|acm reference format|subjects?|highlights|abbreviations|introduction|\d+\s+claims?\b)/i;
/** A footnote, a licence or correspondence note, a link line: page furniture inside the front matter. */
const furniture =
  /^(?:[∗*†‡§¶#]|permission to make|©|copyright\b|correspond|https?:|www\.|doi\b|issn\b)|\b[\w.+-]+@[\w-]+\.[a-z]{2,}/i;
/** A labelled part run into the abstract's last paragraph: "… targeting GCK. Keywords: Diabetes, …". */
const runInPart =
  /\s(?:Keywords?|KEYWORDS?|Key [Ww]ords|Index Terms|IMPORTANCE|Author Summary)\s*[:.—–-]\s.*$/;

function labelledAbstract(blocks: TextBlock[]): string | undefined {
  let sectionSeen = false;
  for (const [index, block] of blocks.entries()) {
    if (block.page > frontPages) return undefined;
    if (block.kind === 'heading') {
      const bare = block.text.replace(/^#+\s*/, '').trim();
      // "Summary" names the abstract only before the paper's sections begin (else it is a conclusion).
      if (abstractHeading.test(bare) && !(sectionSeen && /^summary/i.test(bare))) {
        return collect(blocks, index + 1, []);
      }
      if (block.level !== 1 && isStrongHeading(bare)) sectionSeen = true;
      continue;
    }
    const inline = inlineLabel.exec(block.text);
    if (block.kind === 'paragraph' && inline) {
      return collect(blocks, index + 1, [block.text.slice(inline[0].length)]);
    }
  }
  return undefined;
}

/** The abstract's paragraphs from `start` on, after any already read. */
function collect(blocks: TextBlock[], start: number, first: string[]): string | undefined {
  const paragraphs = [...first];
  for (const block of blocks.slice(start)) {
    if (block.kind === 'heading') break;
    if (block.kind === 'caption') continue;
    const text = block.text.trim();
    const previous = paragraphs[paragraphs.length - 1];
    // A paragraph cut by a column or a float goes on in lower case.
    const continues = previous !== undefined && !/[.!?]["'”’)\]]?$/.test(previous) && /^\p{Ll}/u.test(text);
    if (!continues && (partAfterAbstract.test(text) || furniture.test(text) || !readsAsProse(text))) break;
    paragraphs.push(text);
    if (paragraphs.join(' ').length > maximumLength) break;
  }
  const abstract = paragraphs
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(runInPart, '')
    .trim()
    // A footnote marker after the last sentence ("… the CRLC’s mission.2").
    .replace(/([.!?])\d{1,2}$/, '$1');
  return abstract.length >= 40 ? abstract.slice(0, maximumLength) : undefined;
}

/** Running text: a few words, most of them in lower case, mostly letters. */
function readsAsProse(text: string): boolean {
  const words = text.split(/\s+/).filter((word) => /\p{L}/u.test(word));
  if (words.length < 6) return false;
  const lower = words.filter((word) => /^[^\p{L}]*\p{Ll}/u.test(word)).length;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return lower >= 0.4 * words.length && letters >= 0.6 * text.replace(/\s/g, '').length;
}

/**
 * REVTeX sets the abstract without a heading: one long paragraph after the title and byline,
 * right before the first section ("I. INTRODUCTION").
 */
function unlabelledAbstract(blocks: TextBlock[]): string | undefined {
  const title = blocks.findIndex((block) => block.kind === 'heading' && block.level === 1);
  if (title < 0) return undefined;
  const section = blocks.findIndex((block, index) => index > title && block.kind === 'heading');
  const heading = blocks[section];
  if (!heading || heading.page !== blocks[title]?.page) return undefined;
  const bare = heading.text.replace(/^(?:\d{1,2}\.?|[IVX]{1,5}\.)\s+/, '').trim();
  if (!/^(?:introduction|background)$/i.test(bare)) return undefined;
  const candidate = blocks[section - 1];
  if (!candidate || section - 1 <= title || candidate.kind !== 'paragraph') return undefined;
  const text = candidate.text.trim();
  if (text.length < 400 || furniture.test(text) || !readsAsProse(text) || !/[.!?]$/.test(text)) {
    return undefined;
  }
  return text.slice(0, maximumLength);
}
