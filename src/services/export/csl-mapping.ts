import type { CslDate, CslItem, CslName } from '@citation-js/core';
import { normalizeArxivId, normalizeDoi, normalizePmcid } from '../../domain/identifiers.js';
import { nameParticles as particles } from '../../domain/name-particles.js';
import { emptyPaper, type Paper, type PaperType } from '../../domain/paper.js';
import { venueIdentifiersOfUrl } from '../../domain/venue-identifiers.js';
import {
  bibliographicOfCsl,
  cleanLatex,
  cslOfBibliographic,
  cslOfPerson,
  displayName,
} from './csl-bibliographic.js';

/**
 * Paper records ↔ CSL-JSON, the interchange form citation-js converts to and from BibTeX and RIS.
 * We build CSL-JSON from our own metadata (never from a network lookup), so an export is exactly
 * what the project holds.
 */

const cslTypeOfPaperType: Record<PaperType, string> = {
  'journal-article': 'article-journal',
  'conference-paper': 'paper-conference',
  preprint: 'article',
  book: 'book',
  'book-chapter': 'chapter',
  thesis: 'thesis',
  report: 'report',
  dataset: 'dataset',
  editorial: 'article-journal',
  patent: 'patent',
  'patent-application': 'patent',
  other: 'document',
};

const paperTypeOfCslType: Record<string, PaperType> = {
  'article-journal': 'journal-article',
  'article-magazine': 'journal-article',
  'article-newspaper': 'journal-article',
  'paper-conference': 'conference-paper',
  article: 'preprint',
  manuscript: 'preprint',
  book: 'book',
  chapter: 'book-chapter',
  thesis: 'thesis',
  report: 'report',
  dataset: 'dataset',
  patent: 'patent',
};

const suffixes = /^(jr\.?|sr\.?|ii|iii|iv)$/i;

/**
 * Splits an author string as our records hold it ("Given Family", or "Family, Given") into CSL
 * name parts. A single word (an organisation, a mononym) stays a literal.
 */
export function splitPersonName(text: string): CslName {
  const name = text.replace(/\s+/g, ' ').trim();
  if (name.includes(',')) {
    const [family = '', given = '', suffix] = name.split(',').map((part) => part.trim());
    return { family, given, ...(suffix ? { suffix } : {}) };
  }
  const words = name.split(' ');
  if (words.length === 1) return { literal: name };
  let suffix: string | undefined;
  if (words.length > 2 && suffixes.test(words[words.length - 1] ?? '')) suffix = words.pop();
  let familyStart = words.length - 1;
  while (familyStart > 1 && particles.has((words[familyStart - 1] ?? '').toLowerCase())) familyStart -= 1;
  return {
    given: words.slice(0, familyStart).join(' '),
    family: words.slice(familyStart).join(' '),
    ...(suffix ? { suffix } : {}),
  };
}

/** Joins CSL name parts back into "Given Family Suffix". */
export function joinPersonName(name: CslName): string {
  if (name.literal) return name.literal.trim();
  return [name.given, name['dropping-particle'], name['non-dropping-particle'], name.family, name.suffix]
    .filter((part): part is string => typeof part === 'string' && part.trim().length > 0)
    .map((part) => part.trim())
    .join(' ');
}

function dateParts(paper: Paper): CslDate | undefined {
  const match = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(paper.publication_date ?? '');
  const parts = match
    ? [match[1], match[2], match[3]].filter((part): part is string => part !== undefined).map(Number)
    : paper.year
      ? [paper.year]
      : [];
  return parts.length > 0 ? { 'date-parts': [parts] } : undefined;
}

/** An ASCII citation key: first author's family name, year, first title word ("Lin2022DoTAT"). */
export function citationKey(paper: Paper): string {
  const first = paper.authors[0] ? splitPersonName(paper.authors[0]) : {};
  const family = first.family ?? first.literal ?? 'Anonymous';
  const word = paper.title.split(/\s+/).find((part) => part.replace(/[^\p{L}\p{N}]/gu, '').length > 3);
  const ascii = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 24);
  return `${ascii(family) || 'Anonymous'}${paper.year ?? ''}${ascii(word ?? '')}`;
}

/** Whitespace (newlines included) collapsed to single spaces: reference formats are line-based. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The CSL-JSON item of a paper record; `id` is its citation key. */
export function paperToCsl(paper: Paper, id: string): CslItem {
  const ids = paper.identifiers ?? {};
  const doi = normalizeDoi(paper.doi ?? ids.doi ?? null);
  const arxiv = normalizeArxivId(ids.arxiv ?? null);
  const url = paper.url ?? paper.landing_page_url ?? (arxiv ? `https://arxiv.org/abs/${arxiv}` : null);
  const type = (paper.type ?? null) as PaperType | null;
  const item: CslItem = {
    id,
    'citation-key': id,
    type: type && type in cslTypeOfPaperType ? cslTypeOfPaperType[type] : 'article-journal',
    title: oneLine(paper.title),
    author: authorsOf(paper),
  };
  Object.assign(item, cslOfBibliographic(paper.bibliographic ?? {}, item.type ?? '', arxiv));
  const issued = dateParts(paper);
  if (issued) item.issued = issued;
  if (paper.venue) item['container-title'] = oneLine(paper.venue);
  if (doi) item.DOI = doi;
  if (url) item.URL = url;
  if (paper.abstract) item.abstract = oneLine(paper.abstract);
  if (ids.pmid) item.PMID = ids.pmid;
  const pmcid = normalizePmcid(ids.pmcid ?? null);
  if (pmcid) item.PMCID = pmcid;
  const patentNumber = paper.patent_number ?? ids.patent_number;
  if (patentNumber) item.number = patentNumber;
  if (item.type === 'patent' && paper.assignees?.length) item.publisher = paper.assignees.join('; ');
  return item;
}

/** The record's authors in parts: as imported when the parts match the names, else split. */
function authorsOf(paper: Paper): CslName[] {
  const parts = paper.bibliographic?.author_names;
  if (parts && parts.length === paper.authors.length) return parts.map(cslOfPerson);
  return paper.authors.map(splitPersonName);
}

function firstDate(item: CslItem): { year: number | null; publicationDate: string | null } {
  for (const date of [item.issued, item['event-date']]) {
    const parts = date?.['date-parts']?.[0]?.map((part) => Number(part)).filter(Number.isFinite) ?? [];
    const [year, month, day] = parts;
    if (year !== undefined && year > 0) {
      const pad = (value: number) => String(value).padStart(2, '0');
      const text = [String(year), month ? pad(month) : null, month && day ? pad(day) : null]
        .filter((part): part is string => part !== null)
        .join('-');
      return { year, publicationDate: text };
    }
    const raw = /\b(\d{4})\b/.exec(date?.raw ?? date?.literal ?? '');
    if (raw?.[1]) return { year: Number(raw[1]), publicationDate: raw[1] };
  }
  return { year: null, publicationDate: null };
}

function text(value: unknown): string | null {
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string') return null;
  const clean = cleanLatex(value.replace(/\s+/g, ' ').trim());
  return clean.length > 0 ? clean : null;
}

/**
 * A paper record from a CSL-JSON item (an imported BibTeX/RIS entry). Returns null for an item
 * without a title, which cannot be filed. `extra` carries identifiers found outside CSL (a BibTeX
 * `eprint`).
 */
export function cslToPaper(
  item: CslItem,
  extra: { arxiv?: string | null; arxivClass?: string | null } = {},
): Paper | null {
  const title = text(item.title);
  if (!title) return null;
  const paper = emptyPaper(title);
  const { bibliographic, arxiv: numberedArxiv } = bibliographicOfCsl(item);
  if (extra.arxivClass && !bibliographic.arxiv_class) bibliographic.arxiv_class = extra.arxivClass.trim();
  // "and others" is the list going on (et al.), never a person.
  paper.authors = (bibliographic.author_names ?? []).map(displayName).filter((name) => name.length > 0);
  if (Object.keys(bibliographic).length > 0) paper.bibliographic = bibliographic;
  paper.abstract = text(item.abstract);
  const { year, publicationDate } = firstDate(item);
  paper.year = year;
  paper.publication_date = publicationDate;
  paper.venue = text(item['container-title']) ?? text(item['collection-title']);
  const url = text(item.URL);
  paper.url = url;
  const doi = normalizeDoi(text(item.DOI));
  paper.doi = doi;
  const arxiv =
    normalizeArxivId(extra.arxiv ?? null) ??
    normalizeArxivId(numberedArxiv) ??
    normalizeArxivId(url) ??
    (doi?.startsWith('10.48550/arxiv.') ? normalizeArxivId(doi.slice('10.48550/arxiv.'.length)) : null);
  const pmid = text(item.PMID);
  const pmcid = normalizePmcid(text(item.PMCID));
  paper.identifiers = {
    // An OpenReview forum, PMLR/JMLR page or ACL Anthology url names the paper: an identity key.
    ...venueIdentifiersOfUrl(url),
    ...(doi ? { doi } : {}),
    ...(arxiv ? { arxiv } : {}),
    ...(pmid && /^\d+$/.test(pmid) ? { pmid } : {}),
    ...(pmcid ? { pmcid } : {}),
  };
  paper.type = paperTypeOfCslType[item.type ?? ''] ?? (item.type === 'patent' ? 'patent' : 'other');
  if (paper.type === 'patent') {
    const number = text(item.number);
    if (number) paper.patent_number = number;
  }
  paper.source = 'import';
  return paper;
}
