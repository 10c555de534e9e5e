import { normalizeArxivId, normalizeDoi, normalizePmcid } from '../../domain/identifiers.js';
import { type Paper, type PaperIdentifiers, type PaperType, paperTypes } from '../../domain/paper.js';
import {
  normalizeJmlrId,
  normalizeOpenReviewId,
  normalizePmlrId,
  venueIdentifiersOfUrl,
} from '../../domain/venue-identifiers.js';
import { recordLimitViolation } from '../limits/record-limits.js';

/**
 * What a format reader knows about one record before it becomes a `Paper`: every field optional and
 * loosely typed, so the mapping code of each format stays a flat list of assignments.
 */
export interface PaperDraft {
  title?: string | null;
  authors?: (string | null | undefined)[];
  abstract?: string | null;
  publication_date?: string | null;
  year?: number | null;
  venue?: string | null;
  type?: PaperType | null;
  url?: string | null;
  pdf_url?: string | null;
  cited_by_count?: number | null;
  identifiers?: { [key in keyof PaperIdentifiers]?: string | number | null };
  assignees?: string[];
  patent_number?: string | null;
  kind?: string | null;
  filing_date?: string | null;
}

/** Options of `buildPaper`. */
export interface BuildOptions {
  /** Where the record came from, stored as `paper.source` (the format name). */
  source: string;
  /** Accept a record without a title (S2 abstracts dataset rows, merged later by identifier). */
  allowUntitled?: boolean;
}

const whitespace = /\s+/g;
/**
 * True when the text has white space other than single spaces. Most text is already clean, and a
 * few native substring searches are much cheaper than a regex scan (measured: a character-class
 * regex over every abstract was the largest cost of the JSONL path) or a replace that rebuilds it.
 * Rarer Unicode spaces (U+2000–U+200A…) stay as they are; tokenizers treat them as separators.
 */
function hasUntidySpace(text: string): boolean {
  return (
    text.includes('\n') ||
    text.includes('  ') ||
    text.includes('\t') ||
    text.includes('\r') ||
    text.includes('\u00a0') ||
    text.includes('\f') ||
    text.includes('\v')
  );
}

/** Trimmed text with runs of white space collapsed, or null when empty or not a string/number. */
export function cleanText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = (hasUntidySpace(value) ? value.replace(whitespace, ' ') : value).trim();
  return text.length > 0 ? text : null;
}

/** A finite integer from a number or numeric text, else null. */
export function toInteger(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

/** The year of an ISO-like date (`2019-05-01`, `2019`), or null. */
export function yearOf(date: string | null | undefined): number | null {
  const match = date ? /^(\d{4})(?:\D|$)/.exec(date.trim()) : null;
  return match ? Number(match[1]) : null;
}

/**
 * An ISO date from parts: `YYYY-MM-DD`, `YYYY-MM` or `YYYY` depending on what is known. Month names
 * (`Jan`, `September`) are accepted because PubMed and BibTeX write them.
 */
export function isoDate(year: unknown, month?: unknown, day?: unknown): string | null {
  const y = toInteger(year);
  if (y === null || y < 1000 || y > 2999) return null;
  const m = monthNumber(month);
  if (m === null) return String(y);
  const d = toInteger(day);
  const mm = String(m).padStart(2, '0');
  return d !== null && d >= 1 && d <= 31 ? `${y}-${mm}-${String(d).padStart(2, '0')}` : `${y}-${mm}`;
}

const monthNames = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function monthNumber(value: unknown): number | null {
  const number = toInteger(value);
  if (number !== null) return number >= 1 && number <= 12 ? number : null;
  if (typeof value !== 'string') return null;
  const index = monthNames.indexOf(value.trim().slice(0, 3).toLowerCase());
  return index === -1 ? null : index + 1;
}

/** Normalises a compact date (`20190517`, `2019-05-17`, `2019`) to ISO; null when it is not a date. */
export function normalizeDate(value: unknown): string | null {
  const text = cleanText(value);
  if (!text) return null;
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (compact) return isoDate(compact[1], compact[2], compact[3]);
  const iso = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(text);
  return iso ? isoDate(iso[1], iso[2], iso[3]) : null;
}

/**
 * The record's identifiers, normalised. Venue identifiers a url names (an OpenReview forum, a PMLR or
 * JMLR page, an ACL Anthology paper) are added when the record does not give them itself: every
 * identifier a record carries is an identity key, so a re-run or another source finds it again.
 */
function normalizeIdentifiers(
  raw: PaperDraft['identifiers'],
  urls: Array<string | null | undefined>,
): PaperIdentifiers | undefined {
  const ids: PaperIdentifiers = {};
  for (const url of urls) {
    for (const [key, value] of Object.entries(venueIdentifiersOfUrl(url))) {
      (ids as Record<string, string>)[key] ??= value;
    }
  }
  if (!raw) return Object.keys(ids).length > 0 ? ids : undefined;
  const text = (value: unknown) => cleanText(value);
  const digits = (value: unknown) => {
    const value_ = text(value);
    return value_ && /^\d+$/.test(value_) ? value_ : null;
  };
  const doi = normalizeDoi(text(raw.doi));
  if (doi) ids.doi = doi;
  const arxiv = normalizeArxivId(text(raw.arxiv));
  if (arxiv) ids.arxiv = arxiv;
  const pmid = digits(raw.pmid);
  if (pmid) ids.pmid = pmid;
  const pmcid = normalizePmcid(text(raw.pmcid));
  if (pmcid) ids.pmcid = pmcid;
  const ssId = text(raw.ss_id);
  if (ssId && /^[0-9a-f]{40}$/i.test(ssId)) ids.ss_id = ssId.toLowerCase();
  const corpusId = digits(raw.corpus_id);
  if (corpusId) ids.corpus_id = corpusId;
  const mag = digits(raw.mag);
  if (mag) ids.mag = mag;
  const acl = text(raw.acl);
  if (acl) ids.acl = acl;
  const openalex = text(raw.openalex)?.replace(/^https?:\/\/openalex\.org\//i, '');
  if (openalex && /^W\d+$/i.test(openalex)) ids.openalex = openalex.toUpperCase();
  const patent = text(raw.patent_number);
  if (patent) ids.patent_number = patent.toUpperCase();
  const openreview = normalizeOpenReviewId(text(raw.openreview));
  if (openreview) ids.openreview = openreview;
  const pmlr = normalizePmlrId(text(raw.pmlr));
  if (pmlr) ids.pmlr = pmlr;
  const jmlr = normalizeJmlrId(text(raw.jmlr));
  if (jmlr) ids.jmlr = jmlr;
  return Object.keys(ids).length > 0 ? ids : undefined;
}

/**
 * Turns a draft into a `Paper`: cleans text, normalises identifiers (DOI also on `paper.doi`), derives
 * `year` from the date and the date from the year, and sets `pdf_id` = `PDF_URL:<url>` when an open
 * PDF url is known. Returns a rejection reason (string) when the record is unusable, or larger than
 * the input limits allow (`recordLimitViolation`: an endless title, abstract or author list).
 */
export function buildPaper(draft: PaperDraft, options: BuildOptions): Paper | string {
  const title = cleanText(draft.title) ?? '';
  if (!title && !options.allowUntitled) return 'record has no title';
  const identifiers = normalizeIdentifiers(draft.identifiers, [draft.url, draft.pdf_url]);
  const publicationDate = cleanText(draft.publication_date) ?? null;
  const year = draft.year ?? yearOf(publicationDate);
  const pdfUrl = httpUrl(draft.pdf_url);
  const paper: Paper = {
    title,
    authors: (draft.authors ?? []).map(cleanText).filter((name): name is string => name !== null),
    abstract: withoutAbstractLabel(cleanText(draft.abstract)),
    publication_date: publicationDate ?? (year !== null ? String(year) : null),
    cited_by_count: draft.cited_by_count ?? null,
    url: httpUrl(draft.url),
    ss_id: identifiers?.ss_id ?? null,
    doi: identifiers?.doi ?? null,
    year,
    venue: cleanText(draft.venue),
    type: draft.type && (paperTypes as readonly string[]).includes(draft.type) ? draft.type : 'other',
    source: options.source,
  };
  if (pdfUrl) {
    paper.pdf_url = pdfUrl;
    paper.pdf_id = `PDF_URL:${pdfUrl}`;
  }
  if (identifiers) paper.identifiers = identifiers;
  if (draft.assignees) paper.assignees = draft.assignees;
  if (draft.patent_number) paper.patent_number = draft.patent_number;
  if (draft.kind) paper.kind = draft.kind;
  if (draft.filing_date) paper.filing_date = draft.filing_date;
  return recordLimitViolation(paper) ?? paper;
}

// "Abstract", "ABSTRACT:", "Abstract of Disclosure" heading the text (OpenAlex, Crossref JATS, USPTO).
const abstractLabel = /^abstract(?: of (?:the )?disclosure)?\s*[:.\-\u2014]?\s+(?=[\p{Lu}\d(["\u201c])/iu;

function withoutAbstractLabel(text: string | null): string | null {
  if (!text || !/^abstract/i.test(text)) return text;
  return text.replace(abstractLabel, '') || null;
}

function httpUrl(value: unknown): string | null {
  const text = cleanText(value);
  return text && /^https?:\/\/\S+$/i.test(text) ? text : null;
}
