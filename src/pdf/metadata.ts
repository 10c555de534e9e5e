import type { PdfMetadata } from '../ports/pdf-extractor.js';
import type { BodyStyle } from './headings.js';
import type { TextLine } from './layout-types.js';
import { normalizeText } from './text-cleaning.js';

/** What metadata sniffing looks at: the info dictionary and the first page, margins included. */
export interface MetadataSources {
  info: Record<string, unknown>;
  /** Every line of page 1 in reading order, running headers and footers included. */
  firstPage: TextLine[];
  /** Text drawn at an angle on page 1 (the arXiv stamp lives there). */
  firstPageRotated: string[];
  /** The title lines found on page 1 (largest type in its upper half). */
  titleLines: TextLine[];
  body: BodyStyle;
}

/**
 * The title lines of page 1: the largest type in the upper half of the page that is clearly larger
 * than the body text and reads like a title (three words or twenty letters at least, so large
 * figure labels and journal logos set in type do not count), as one run of lines.
 */
export function findTitleLines(firstPage: TextLine[], pageHeight: number, body: BodyStyle): TextLine[] {
  const upper = firstPage.filter(
    (line) => line.bottom < pageHeight * 0.5 && (line.text.match(/\p{L}/gu)?.length ?? 0) >= 2,
  );
  // Large type first; then (preprints) a title only a little larger than the body but in bold.
  return (
    titleRun(upper, (size) => size >= body.size * 1.15) ??
    titleRun(
      upper.filter((line) => line.font !== body.font && line.bottom < pageHeight * 0.4),
      (size) => size > body.size * 1.04,
    ) ??
    []
  );
}

function titleRun(lines: TextLine[], large: (size: number) => boolean): TextLine[] | undefined {
  const sizes = [...new Set(lines.map((line) => line.size))].filter(large).sort((a, b) => b - a);
  for (const size of sizes) {
    const sorted = lines
      .filter((line) => Math.abs(line.size - size) <= size * 0.05)
      .sort((a, b) => a.bottom - b.bottom);
    const first = sorted[0];
    if (!first) continue;
    const run = [first];
    for (const line of sorted.slice(1)) {
      if (line.bottom - (run[run.length - 1] as TextLine).bottom > 2.5 * size) break;
      run.push(line);
    }
    const text = run.map((line) => line.text).join(' ');
    const readsLikeTitle = text.split(/\s+/).length >= 3 || (text.match(/\p{L}/gu)?.length ?? 0) >= 20;
    if (readsLikeTitle && run.length <= 6) return run;
  }
  return undefined;
}

const doiPattern = /\b(10\.\d{4,9}\/[^\s"<>{}]+)/;
const arxivPattern = /arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?\/\d{7}(?:v\d+)?)/i;
const months = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';

export function sniffMetadata(sources: MetadataSources): PdfMetadata {
  const info = sources.info;
  const infoText = (key: string) => {
    const value = info[key];
    return typeof value === 'string' ? normalizeText(decodeEntities(value)) : undefined;
  };
  const custom = (info.Custom ?? {}) as Record<string, unknown>;
  const pageText = sources.firstPage.map((line) => line.text);
  const metadata: PdfMetadata = {};

  const title = chooseTitle(
    infoText('Title'),
    normalizeText(sources.titleLines.map((line) => line.text).join(' ')),
  );
  if (title) metadata.title = title;

  const authors = authorsFromInfo(infoText('Author')) ?? authorsFromPage(sources);
  if (authors && authors.length > 0) metadata.authors = authors;

  const doiSources = [
    typeof custom.doi === 'string' ? custom.doi : undefined,
    infoText('Subject'),
    infoText('Keywords'),
    ...sources.firstPageRotated,
    ...pageText,
  ];
  for (const source of doiSources) {
    const match = source ? doiPattern.exec(source) : null;
    if (match?.[1]) {
      metadata.doi = match[1].replace(/[.,;:)\]]+$/, '');
      break;
    }
  }

  for (const source of [...sources.firstPageRotated, ...pageText.slice(0, 40)]) {
    const match = arxivPattern.exec(source);
    if (match?.[1]) {
      metadata.arxivId = match[1];
      break;
    }
  }

  const year = yearOf(sources.firstPageRotated, pageText, infoText('CreationDate'));
  if (year !== undefined) metadata.year = year;
  const producer = infoText('Producer');
  if (producer) metadata.producer = producer;
  return metadata;
}

/**
 * The info dictionary's title when it agrees with the one printed on page 1 (it has no line-break
 * artefacts), the printed one when they disagree (info titles are often stale: "t.dvi", a
 * template's name), whichever exists otherwise.
 */
function chooseTitle(infoTitle: string | undefined, pageTitle: string): string | undefined {
  const info = infoTitle && isPlausibleTitle(infoTitle) ? infoTitle : undefined;
  const page = isPlausibleTitle(pageTitle) ? pageTitle : undefined;
  if (!info || !page) return info ?? page;
  const letters = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  if (letters(page).includes(letters(info)) || letters(info).includes(letters(page))) return info;
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const infoWords = words(info);
  const pageWords = words(page);
  const shared = [...infoWords].filter((word) => pageWords.has(word)).length;
  return shared >= 0.6 * Math.max(infoWords.size, pageWords.size) ? info : page;
}

/** Some producers put HTML entities in the info dictionary ("COVID&#x02010;19"). */
function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body.startsWith('#x') || body.startsWith('#X'))
      return String.fromCodePoint(Number.parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(Number(body.slice(1)));
    return named[body.toLowerCase()] ?? entity;
  });
}

function isPlausibleTitle(title: string): boolean {
  if (title.length < 8 || title.length > 300 || !/\s/.test(title)) return false;
  return !/^(untitled|microsoft (word|powerpoint)|title|document\d*|slide \d)\b|\.(pdf|docx?|tex|dvi|ps|indd)$/i.test(
    title,
  );
}

function authorsFromInfo(author: string | undefined): string[] | undefined {
  if (!author || author.length < 3 || /^(admin|user|owner|unknown|author)\b/i.test(author)) return undefined;
  const names = splitNames(author);
  return names.length > 0 ? names : undefined;
}

/** The lines right under the title, before affiliations, emails and the abstract. */
function authorsFromPage(sources: MetadataSources): string[] | undefined {
  const lastTitle = sources.titleLines[sources.titleLines.length - 1];
  if (!lastTitle) return undefined;
  const index = sources.firstPage.indexOf(lastTitle);
  const names: string[] = [];
  for (const line of sources.firstPage.slice(index + 1, index + 6)) {
    if (
      /@|\b(universit|institut|department|laborator|college|school|centre|center|research|hospital|academy|foundation|corporation|abstract|inc\.|ltd)/i.test(
        line.text,
      ) ||
      line.size > lastTitle.size * 0.95 ||
      line.bottom - lastTitle.bottom > 8 * lastTitle.size
    ) {
      break;
    }
    names.push(...splitNames(line.text));
  }
  return names.length > 0 ? names : undefined;
}

const notInNames = new Set([
  'with',
  'for',
  'the',
  'of',
  'in',
  'on',
  'to',
  'from',
  'at',
  'using',
  'via',
  'and',
  'or',
]);

/** "A. Smith1, B. Jones*, and C. Wu†" → ["A. Smith", "B. Jones", "C. Wu"]. */
function splitNames(text: string): string[] {
  return normalizeText(text)
    .replace(/^by\s+/i, '')
    .replace(/[\d*#†‡§¶⋄□∗♯♮♣♠♥♦✉]+|(?<=\p{Ll})[α-ω]+/gu, ' ')
    .split(/\s*(?:;|,|\band\b|&)\s*/)
    .map((name) => name.replace(/\s+/g, ' ').trim())
    .filter((name) => {
      const words = name.split(' ');
      return (
        words.length >= 2 &&
        words.length <= 5 &&
        words.every((word) => /^\p{Lu}/u.test(word) && !notInNames.has(word.toLowerCase()))
      );
    });
}

function yearOf(rotated: string[], pageText: string[], creationDate: string | undefined): number | undefined {
  const plausible = (year: number) => year >= 1900 && year <= new Date().getFullYear() + 1;
  const stamp = new RegExp(`\\b\\d{1,2}\\s+(?:${months})\\w*\\s+((?:19|20)\\d{2})\\b`);
  for (const text of rotated.filter((each) => /arxiv/i.test(each))) {
    const match = stamp.exec(text);
    if (match?.[1] && plausible(Number(match[1]))) return Number(match[1]);
  }
  const patterns = [
    /(?:©|\(c\)|copyright|published)[^.;]{0,40}?\b((?:19|20)\d{2})\b/i,
    /(?:accepted|received)[^.;]{0,40}?\b((?:19|20)\d{2})\b/i,
    new RegExp(`\\b(?:${months})\\w*\\.?,?\\s+(?:\\d{1,2},?\\s+)?((?:19|20)\\d{2})\\b`),
    /\b(?:vol\.?|volume)\s*\d+[^.]{0,60}?\b((?:19|20)\d{2})\b/i,
  ];
  for (const pattern of patterns) {
    for (const text of pageText) {
      const match = pattern.exec(text);
      if (match?.[1] && plausible(Number(match[1]))) return Number(match[1]);
    }
  }
  const created = /^D:((?:19|20)\d{2})/.exec(creationDate ?? '');
  return created?.[1] ? Number(created[1]) : undefined;
}
