import type { TextLine, TextRun } from './layout-types.js';
import { cleanPersonName, splitPersonNames } from './person-names.js';

/**
 * The authors printed on page 1 (decision 0028): the byline between the title and the abstract,
 * read from the positioned runs so that names separated only by superscript markers or by space
 * ("Kyle Loα∗ Zejiang Shenα,τ∗", an ACM author grid) come apart; for a US patent, the "(72)
 * Inventors" field; for an editorial without a byline, the signature above the references.
 */

export interface BylineSources {
  /** Page 1's lines, reading order. */
  firstPage: TextLine[];
  /** Page 1's upright runs. */
  runs: TextRun[];
  titleLines: TextLine[];
  pageHeight: number;
}

/** A line that carries an affiliation, an address, an e-mail, a date or a label, never a name. */
const notByline =
  /@|https?:|www\.|:|\b(universit|institut|department|dept\b|laborator|college|school|centre|center|research|hospital|academy|foundation|corporation|company|inc\b|ltd|gmbh|faculty|ministry|clinic|program|division|correspond|equal(ly)? contribut|contributed|affiliat|present address|current address|these authors)/i;
const addressPattern = /,\s*(?:[A-Z]{2}|USA|UK)\s*(?:\d|,|$)|\b\d{5}\b/;
/** Where the byline region ends: the abstract, keywords, the first section, a thesis's front matter. */
const endOfByline =
  /^\s*(?:abstract|a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|keywords?|key\s?words|index terms|introduction|background|contents|(?:\d+|i)\.?\s+introduction|thesis committee|submitted in partial|copyright|©)/i;

export function bylineAuthors(sources: BylineSources): string[] | undefined {
  return patentInventors(sources.firstPage) ?? byline(sources) ?? signature(sources.firstPage);
}

/** US patents: "(72) Inventors: Arthur L. Spence, San Jose, CA (US); Jeremy T. Sandmel, …". */
export function patentInventors(firstPage: TextLine[]): string[] | undefined {
  const start = firstPage.findIndex((line) => /^\(\s*7[256]\s*\)\s*Inventors?\s*:/i.test(line.text));
  if (start < 0) return undefined;
  const parts = [firstPage[start]?.text.replace(/^\(\s*7[256]\s*\)\s*Inventors?\s*:\s*/i, '') ?? ''];
  for (const line of firstPage.slice(start + 1, start + 12)) {
    if (/^\(\s*[\d*]+\s*\)/.test(line.text)) break;
    parts.push(line.text);
  }
  const names = parts
    .join(' ')
    .split(';')
    .map((entry) => cleanPersonName(entry.split(',')[0] ?? ''))
    .filter((name): name is string => name !== undefined);
  return names.length > 0 ? names : undefined;
}

/**
 * The byline: lines below the title, above the abstract, in the style (font and size) of the first
 * line that holds a name, read top-down; a name line right under another in the same column (an
 * ACM author box) follows it. Lines with affiliations, addresses and e-mails are passed over.
 */
function byline(sources: BylineSources): string[] | undefined {
  const { titleLines } = sources;
  if (titleLines.length === 0) return undefined;
  const titleBottom = Math.max(...titleLines.map((line) => line.bottom));
  const titleSize = Math.max(...titleLines.map((line) => line.size));
  const limit = titleBottom + 0.45 * sources.pageHeight;
  const region = sources.firstPage
    .filter((line) => line.top >= titleBottom - 1 && line.bottom <= limit && !titleLines.includes(line))
    .sort((a, b) => a.top - b.top || a.x0 - b.x0);
  const candidates: TextLine[] = [];
  for (const line of region) {
    if (endOfByline.test(line.text) || readsLikeProse(line)) break;
    if (line.size > titleSize * 0.98) continue;
    candidates.push(line);
  }
  let style: { font: string; size: number } | undefined;
  const nameLines: Array<{ line: TextLine; text: string }> = [];
  for (const line of candidates) {
    if (notByline.test(line.text) || addressPattern.test(line.text)) continue;
    if (style && (line.font !== style.font || Math.abs(line.size - style.size) > 0.5)) continue;
    const text = markedText(line, sources.runs);
    if (!style) {
      if (splitPersonNames(text).length === 0) continue;
      style = { font: line.font, size: line.size };
    }
    nameLines.push({ line, text });
  }
  const names = splitPersonNames(joinLines(inBoxOrder(nameLines)));
  return names.length > 0 ? unique(names) : undefined;
}

/** A line of running text: many words, most not capitalised (names are all capitalised). */
export function readsLikeProse(line: TextLine): boolean {
  const words = line.text.split(/\s+/).filter((word) => /\p{L}/u.test(word));
  if (words.length < 8) return false;
  const capitalised = words.filter((word) => /^[^\p{L}]*\p{Lu}/u.test(word)).length;
  return capitalised < 0.6 * words.length;
}

/**
 * The line's text rebuilt from its runs with `|` where a superscript marker or a wide gap stands
 * between two names, so that "Kyle Loα∗ Zejiang Shenα,τ∗" reads "Kyle Lo | Zejiang Shen |".
 */
function markedText(line: TextLine, runs: TextRun[]): string {
  const own = runs
    .filter(
      (run) =>
        run.y >= line.top - 0.1 * line.size &&
        run.y <= line.bottom + 0.3 * line.size &&
        run.x >= line.x0 - 0.5 &&
        run.x + run.width <= line.x1 + 0.5 &&
        run.text.trim().length > 0,
    )
    .sort((a, b) => a.x - b.x);
  if (own.length === 0) return line.text;
  let text = '';
  let previous: TextRun | undefined;
  for (const run of own) {
    const superscript =
      run.size < line.size * 0.85 &&
      run.y < line.bottom - 0.15 * line.size &&
      !/^[´ˇ¨˜˘˙˚˝¸ˆ¯`^~]$/.test(run.text.trim());
    if (superscript) {
      text += ' | ';
    } else {
      if (previous) {
        const gap = run.x - (previous.x + previous.width);
        if (gap > 1.2 * line.size) text += ' | ';
        else if (gap > 0.15 * line.size || (previous.spaceAfter === true && gap > 0.08 * line.size))
          text += ' ';
      }
      text += run.text;
    }
    previous = run;
  }
  return text;
}

/** Lines top-down; a line right under another, overlapping it, follows it (an author box). */
function inBoxOrder(lines: Array<{ line: TextLine; text: string }>): Array<{ line: TextLine; text: string }> {
  const boxes: Array<Array<{ line: TextLine; text: string }>> = [];
  for (const entry of lines) {
    const box = boxes.find((candidate) => {
      const last = candidate[candidate.length - 1]?.line as TextLine;
      const below = entry.line.top - last.bottom;
      const centred = Math.abs(entry.line.x0 + entry.line.x1 - last.x0 - last.x1) < 6;
      const aligned = Math.abs(entry.line.x0 - last.x0) < 2;
      return below >= -1 && below < 0.8 * last.size && (centred || aligned);
    });
    if (box) box.push(entry);
    else boxes.push([entry]);
  }
  return boxes.flat();
}

/**
 * The lines' texts as one list. A line ends a name unless its last name is a lone word with no
 * marker after it, which the next line completes ("… and Andrew" / "D. White").
 */
function joinLines(lines: Array<{ text: string }>): string {
  let joined = '';
  for (const { text } of lines) {
    if (!joined) {
      joined = text;
      continue;
    }
    const tail = joined.split(/\s*(?:\||;|,|\band\b|&)\s*/i).pop() ?? '';
    const dangling = /^\p{Lu}[\p{L}'’-]+$/u.test(tail.trim()) && !/[|,;]\s*$/.test(joined);
    joined += dangling ? ` ${text}` : ` | ${text}`;
  }
  return joined;
}

/**
 * An editorial's author signs at the end of the text: a name line followed by an affiliation line,
 * before the references.
 */
function signature(firstPage: TextLine[]): string[] | undefined {
  for (const [index, line] of firstPage.entries()) {
    if (/^\s*references\s*$/i.test(line.text)) break;
    const next = firstPage[index + 1];
    if (
      !next ||
      !/\b(universit|institut|department|laborator|college|school|centre|center|hospital)/i.test(next.text)
    )
      continue;
    if (notByline.test(line.text) || line.text.split(/\s+/).length > 5) continue;
    const name = cleanPersonName(line.text);
    if (name) return [name];
  }
  return undefined;
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
