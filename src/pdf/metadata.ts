import type { PdfMetadata } from '../ports/pdf-extractor.js';
import { bylineAuthors } from './bylines.js';
import { arxivIdsIn, doisIn, type FrontMatter, frontMatterOf, isCited } from './front-matter.js';
import type { BodyStyle } from './headings.js';
import type { TextLine, TextRun } from './layout-types.js';
import { nameKey, splitPersonNames } from './person-names.js';
import { printedYear } from './printed-year.js';
import { normalizeText } from './text-cleaning.js';

/** What metadata sniffing looks at: the info dictionary and the first page, margins included. */
export interface MetadataSources {
  info: Record<string, unknown>;
  /** Every line of page 1 in reading order, running headers and footers included. */
  firstPage: TextLine[];
  /** Text drawn at an angle on page 1 (the arXiv stamp lives there). */
  firstPageRotated: string[];
  /** Page 1's upright runs (the byline is read from them: superscript markers split names). */
  firstPageRuns: TextRun[];
  pageHeight: number;
  /** The title lines found on page 1 (largest type in its upper half). */
  titleLines: TextLine[];
  body: BodyStyle;
  /** DOIs and arXiv ids the reference list cites (lower case): never the document's own. */
  cited?: Set<string>;
  /** The DOI the file's XMP metadata gives. */
  xmpDoi?: string | undefined;
}

/**
 * The title lines of page 1: the largest type in the upper half of the page that is clearly larger
 * than the body text and reads like a title (three words or twenty letters at least, so large
 * figure labels and journal logos set in type do not count), as one run of lines. Banners are
 * passed over (a journal's name, "RESEARCH ARTICLE", a patent's "(12) United States Patent"); a US
 * patent's title is its "(54)" field.
 */
export function findTitleLines(firstPage: TextLine[], pageHeight: number, body: BodyStyle): TextLine[] {
  const patent = patentTitleLines(firstPage);
  if (patent) return patent;
  const upper = firstPage.filter(
    (line) =>
      line.bottom < pageHeight * 0.5 &&
      (line.text.match(/\p{L}/gu)?.length ?? 0) >= 2 &&
      !isBanner(line.text),
  );
  // Large type first; then (preprints) a title only a little larger than the body but in bold.
  return (
    titleRun(upper, (size) => size >= body.size * 1.15) ??
    titleRun(
      upper.filter((line) => line.font !== body.font && line.bottom < pageHeight * 0.4),
      (size) => size > body.size * 1.04,
    ) ??
    // Then (some preprint templates): bold type of the body's size near the top of the page.
    titleRun(
      upper.filter(
        (line) => /bold|black|heavy|semibold|medi/i.test(line.font) && line.bottom < pageHeight * 0.3,
      ),
      (size) => size >= body.size * 0.98,
    ) ??
    // Last: type a little larger than the body in the body's own font, near the top.
    titleRun(
      upper.filter((line) => line.bottom < pageHeight * 0.3),
      (size) => size > body.size * 1.04,
    ) ??
    []
  );
}

/** Patent front pages number their fields (INID codes): "(12) United States Patent", "(54) TITLE". */
const inidCode = /^\(\s*[\d*]{1,2}\s*\)/;

/** The "(54)" field of a patent's front page and the lines continuing it, when page 1 is one. */
function patentTitleLines(firstPage: TextLine[]): TextLine[] | undefined {
  const isPatent = firstPage.some((line) =>
    /united states patent|patent application publication|european patent|\(\s*1[29]\s*\)/i.test(line.text),
  );
  const start = firstPage.findIndex((line) => /^\(\s*54\s*\)/.test(line.text));
  if (!isPatent || start < 0) return undefined;
  const lines = [firstPage[start] as TextLine];
  for (const line of firstPage.slice(start + 1, start + 5)) {
    if (inidCode.test(line.text) || line.x0 < (lines[0] as TextLine).x0 - 2) break;
    lines.push(line);
  }
  return lines;
}

const bannerWords =
  /^(?:\|?\s*)(?:research(?: article)?|original (?:article|research)|open access|editorial|article|review(?: article)?|letter|commentary|perspective|brief (?:communication|report)|short communication|case report|preprint|technical report|[a-z ]*\|.*)\s*$/i;

/** A line that is never a title: a patent field, a journal's banner, a link or a citation line. */
function isBanner(text: string): boolean {
  return (
    inidCode.test(text) ||
    bannerWords.test(text) ||
    // An arXiv stamp read upright, a preprint server's note.
    /^\s*arxiv:\s*\S|^\s*(?:preprint|under review|accepted (?:at|to|for|as))\b/i.test(text) ||
    /https?:|www\.|\bdoi\b|\bissn\b|\bvol\.\s*\d|\bpp\.\s*\d/i.test(text) ||
    // A journal's name set large above the title ("Nature Communications", "Journal of …").
    (text.split(/\s+/).length <= 4 && !/:/.test(text) && journalName.test(text))
  );
}

const journalName =
  /^(?:the\s+)?(?:journal|annals|proceedings|transactions|ieee|acm|nature|plos|bmc|frontiers in|scientific reports|elife|nucleic acids research|physical review)\b/i;

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
    // A run that cannot be a title (an arXiv stamp set upright, an identifier) leaves the next
    // size its chance, rather than the document none.
    if (readsLikeTitle && run.length <= 6 && isPlausibleTitle(pageTitle(run))) return run;
  }
  return undefined;
}

export function sniffMetadata(sources: MetadataSources): PdfMetadata {
  const info = sources.info;
  const infoText = (key: string) => {
    const value = info[key];
    return typeof value === 'string' ? normalizeText(decodeEntities(value)) : undefined;
  };
  const metadata: PdfMetadata = {};

  const title = chooseTitle(infoText('Title'), pageTitle(sources.titleLines));
  if (title) metadata.title = title;

  const authors = chooseAuthors(
    authorsFromInfo(infoText('Author')),
    bylineAuthors({
      firstPage: sources.firstPage,
      runs: sources.firstPageRuns,
      titleLines: sources.titleLines,
      pageHeight: sources.pageHeight,
    }),
  );
  if (authors && authors.length > 0) metadata.authors = authors;

  const front = frontMatterOf(sources.firstPage, sources.pageHeight, sources.titleLines);
  Object.assign(metadata, documentIdentifiers(sources, front, infoText));
  const year = printedYear({
    rotated: sources.firstPageRotated,
    front,
    firstPage: sources.firstPage,
    arxivId: metadata.arxivId,
  });
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
  const info =
    infoTitle && isPlausibleTitle(infoTitle) ? infoTitle.replace(/[\u2010\u2011]/g, '-') : undefined;
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

/**
 * The printed title: its lines joined; a patent's field code dropped and its capitals put in
 * sentence case; words some producers set without space glyphs ("BeyondSummarization:Designing")
 * spaced again at their capitals.
 */
function pageTitle(lines: TextLine[]): string {
  let title = normalizeText(lines.map((line) => line.text).join(' ')).replace(/[\u2010\u2011]/g, '-');
  if (/^\(\s*54\s*\)/.test(title)) {
    title = title.replace(/^\(\s*54\s*\)\s*/, '');
    if (!/\p{Ll}/u.test(title)) title = sentenceCase(title);
  }
  if (!/\s/.test(title) && title.length >= 20) {
    title = title.replace(/(?<=[\p{Ll}:,;])(?=\p{Lu})/gu, ' ').replace(/([:,;])(?=\S)/g, '$1 ');
  }
  return title;
}

/** "CONTROLLING DISPLAY PERFORMANCE" → "Controlling display performance". */
function sentenceCase(text: string): string {
  const lower = text.toLowerCase().replace(/\s+([,.;:])/g, '$1');
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

/**
 * Whether an info-dictionary or printed title can be a title: not a file name ("2306.12345v1.pdf",
 * "t.dvi", "Microsoft Word - draft.docx"), not an identifier or a template's placeholder.
 */
function isPlausibleTitle(title: string): boolean {
  if (title.length < 8 || title.length > 300 || !/\s/.test(title)) return false;
  if ((title.match(/\p{L}/gu)?.length ?? 0) < 5) return false;
  return !/^(untitled|microsoft (word|powerpoint|excel)|title|document\d*|slide \d|layout \d|pii:|doi:|manuscript\s*\d*$|paper\s*\d*$|arxiv:)|\.(pdf|docx?|tex|dvi|ps|indd|qxd|rtf|odt)\b|^[\w.-]+$/i.test(
    title,
  );
}

/** The info dictionary's Author when it reads like people's names (not "Administrator", "jsmith"). */
function authorsFromInfo(author: string | undefined): string[] | undefined {
  if (!author || author.length < 3) return undefined;
  if (
    /^(admin|user|owner|unknown|author|microsoft|windows|default|anonymous)\b|@|\.(docx?|tex|pdf)\b/i.test(
      author,
    )
  )
    return undefined;
  const names = splitPersonNames(author);
  return names.length > 0 ? names : undefined;
}

/**
 * The document's own DOI and arXiv id (decision 0050): the info dictionary's (Custom `doi`,
 * Subject, Keywords), the margin stamp, page 1's front matter and header and footer, then the
 * XMP metadata; never one its reference list cites, nor one in its body text.
 */
function documentIdentifiers(
  sources: MetadataSources,
  front: FrontMatter,
  infoText: (key: string) => string | undefined,
): Pick<PdfMetadata, 'doi' | 'arxivId'> {
  const custom = (sources.info.Custom ?? {}) as Record<string, unknown>;
  const cited = sources.cited ?? new Set<string>();
  const printed = [...front.opening, ...front.margins].map((line) => line.text);
  const own = (found: string[]) => found.find((identifier) => !isCited(identifier, cited));
  const identifiers: Pick<PdfMetadata, 'doi' | 'arxivId'> = {};
  const doi = own(
    [
      typeof custom.doi === 'string' ? custom.doi : undefined,
      infoText('Subject'),
      infoText('Keywords'),
      ...sources.firstPageRotated,
      ...printed,
      sources.xmpDoi,
    ].flatMap((text) => (text ? doisIn(text.replace(/(doi\.org\/|doi:)\s+/gi, '$1')) : [])),
  );
  if (doi) identifiers.doi = doi;
  const arxivId = own([...sources.firstPageRotated, ...printed].flatMap(arxivIdsIn));
  // arXiv's own DOIs name the preprint: 10.48550/arXiv.2306.12345.
  const arxivDoi = /^10\.48550\/arxiv\.(.+)$/i.exec(doi ?? '');
  if (arxivId) identifiers.arxivId = arxivId;
  else if (arxivDoi?.[1]) identifiers.arxivId = arxivDoi[1];
  return identifiers;
}

/**
 * The printed byline wins: producers often write the info Author in "Family Given" order with no
 * comma ("Shahu Sneha" for Sneha Shahu) or name the first author only. The info list is used when
 * the page gives none, or when it has every printed name and more (the page was read partly).
 */
function chooseAuthors(info: string[] | undefined, page: string[] | undefined): string[] | undefined {
  if (!page || page.length === 0) return info;
  if (!info || info.length <= page.length) return page;
  const printed = new Map(page.map((name) => [nameKey(name), name]));
  const infoKeys = new Set(info.map(nameKey));
  if (![...printed.keys()].every((key) => infoKeys.has(key))) return page;
  return info.map((name) => printed.get(nameKey(name)) ?? name);
}
