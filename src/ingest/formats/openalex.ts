import type { PaperType } from '../../domain/paper.js';
import { isObject, jsonFormatReader, type Mapped } from './json-records.js';
import { buildPaper, cleanText, toInteger } from './paper-builder.js';

type Json = Record<string, unknown>;

/**
 * An OpenAlex work (snapshot JSONL line, single-work API response, or an API page `{meta, results}`).
 * The abstract is rebuilt from `abstract_inverted_index`; venue from `primary_location.source`
 * (`host_venue` in pre-2023 snapshots); the open PDF from `best_oa_location`, then any OA location.
 */
export function mapOpenAlexRecord(value: unknown): Mapped {
  if (!isObject(value)) return 'record is not a JSON object';
  if (Array.isArray(value.results)) return value.results.map(mapOpenAlexWork);
  return mapOpenAlexWork(value);
}

function mapOpenAlexWork(value: unknown): ReturnType<typeof buildPaper> {
  if (!isObject(value)) return 'work is not a JSON object';
  const id = cleanText(value.id);
  if (!id || !/openalex\.org\/W\d+$|^W\d+$/i.test(id)) return 'OpenAlex work has no W… id';
  const ids = isObject(value.ids) ? value.ids : {};
  const primary = isObject(value.primary_location) ? value.primary_location : null;
  const hostVenue = isObject(value.host_venue) ? value.host_venue : null;
  const source = primary && isObject(primary.source) ? primary.source : null;
  const doi = cleanText(value.doi) ?? cleanText(ids.doi);
  return buildPaper(
    {
      title: cleanText(value.title) ?? cleanText(value.display_name),
      authors: Array.isArray(value.authorships) ? value.authorships.map(authorshipName) : [],
      abstract: rebuildAbstract(value.abstract_inverted_index),
      publication_date: cleanText(value.publication_date),
      year: toInteger(value.publication_year),
      venue: cleanText(source?.display_name) ?? cleanText(hostVenue?.display_name),
      type: workType(value, cleanText(source?.type) ?? cleanText(hostVenue?.type)),
      url:
        cleanText(primary?.landing_page_url) ??
        (doi ? `https://doi.org/${doi.replace(/^https?:\/\/doi\.org\//i, '')}` : id),
      pdf_url: openPdfUrl(value),
      cited_by_count: toInteger(value.cited_by_count),
      identifiers: {
        openalex: id,
        doi,
        pmid: lastNumber(ids.pmid),
        pmcid: lastNumber(ids.pmcid),
        mag: lastNumber(ids.mag),
        arxiv: arxivFromDoi(doi),
      },
    },
    { source: 'openalex' },
  );
}

/** Rebuilds the abstract text from OpenAlex's `{word: [positions]}` index. */
export function rebuildAbstract(index: unknown): string | null {
  if (!isObject(index)) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) {
    if (!Array.isArray(positions)) continue;
    for (const position of positions) {
      // Positions past 100k are corrupt data, not abstracts; skipping them keeps the array bounded.
      if (Number.isInteger(position) && position >= 0 && position < 100_000) words[position] = word;
    }
  }
  const text = words.filter((word) => word !== undefined).join(' ');
  return text.length > 0 ? text : null;
}

function authorshipName(authorship: unknown): string | null {
  if (!isObject(authorship)) return null;
  const author = isObject(authorship.author) ? authorship.author : {};
  return cleanText(author.display_name) ?? cleanText(authorship.raw_author_name);
}

function openPdfUrl(work: Json): string | null {
  const candidates: unknown[] = [work.best_oa_location, work.primary_location];
  if (Array.isArray(work.locations))
    candidates.push(...work.locations.filter((location) => isObject(location) && location.is_oa));
  for (const location of candidates) {
    const url = isObject(location) ? cleanText(location.pdf_url) : null;
    if (url) return url;
  }
  const oaUrl = isObject(work.open_access) ? cleanText(work.open_access.oa_url) : null;
  return oaUrl && /\.pdf($|\?)/i.test(oaUrl) ? oaUrl : null;
}

const crossrefTypes: Record<string, PaperType> = {
  'journal-article': 'journal-article',
  'proceedings-article': 'conference-paper',
  'posted-content': 'preprint',
  'book-chapter': 'book-chapter',
  book: 'book',
  monograph: 'book',
  'edited-book': 'book',
  'reference-book': 'book',
  dissertation: 'thesis',
  report: 'report',
  dataset: 'dataset',
};

const openAlexTypes: Record<string, PaperType> = {
  preprint: 'preprint',
  'book-chapter': 'book-chapter',
  book: 'book',
  dissertation: 'thesis',
  report: 'report',
  dataset: 'dataset',
  editorial: 'editorial',
  letter: 'editorial',
  review: 'journal-article',
};

/** OpenAlex `type` refined by `type_crossref` and the source type (a conference source → conference paper). */
function workType(work: Json, sourceType: string | null): PaperType {
  const openAlexType = cleanText(work.type);
  if (openAlexType === 'preprint') return 'preprint';
  if (openAlexType === 'article' && sourceType === 'conference') return 'conference-paper';
  if (openAlexType === 'article' && sourceType === 'repository') return 'preprint';
  const crossref = cleanText(work.type_crossref);
  if (crossref && crossrefTypes[crossref]) return crossrefTypes[crossref];
  if (openAlexType === 'article') return 'journal-article';
  return (openAlexType && openAlexTypes[openAlexType]) || 'other';
}

/** The trailing number of an id or id url (`https://pubmed.ncbi.nlm.nih.gov/123` → `123`). */
export function lastNumber(value: unknown): string | null {
  const text = cleanText(value);
  const match = text ? /(\d+)\/?$/.exec(text) : null;
  return match?.[1] ?? null;
}

/** arXiv DOIs (`10.48550/arXiv.2304.05376`) carry the arXiv id. */
export function arxivFromDoi(doi: string | null): string | null {
  const match = doi ? /10\.48550\/arxiv\.(.+)$/i.exec(doi) : null;
  return match?.[1] ?? null;
}

/** Reads OpenAlex works (see `mapOpenAlexRecord`). */
export const readOpenAlex = jsonFormatReader(mapOpenAlexRecord);
