import type { PaperType } from '../../domain/paper.js';
import { decodeEntities } from '../../text/xml-tree.js';
import { isObject } from './json-records.js';
import { buildPaper, cleanText, isoDate, type PaperDraft, toInteger } from './paper-builder.js';

type Json = Record<string, unknown>;

/**
 * Mapping shared by Crossref works and CSL-JSON items: Crossref's REST `message` is CSL-JSON with
 * Crossref type names and a few extra fields (`is-referenced-by-count`, `link`, `license`), so one
 * mapper reads both. Titles and abstracts may carry JATS/HTML markup, which is flattened.
 */
const types: Record<string, PaperType> = {
  'journal-article': 'journal-article',
  'article-journal': 'journal-article',
  'proceedings-article': 'conference-paper',
  'paper-conference': 'conference-paper',
  'posted-content': 'preprint',
  article: 'preprint',
  'book-chapter': 'book-chapter',
  chapter: 'book-chapter',
  'book-section': 'book-chapter',
  'book-part': 'book-chapter',
  book: 'book',
  monograph: 'book',
  'edited-book': 'book',
  'reference-book': 'book',
  'book-set': 'book',
  dissertation: 'thesis',
  thesis: 'thesis',
  report: 'report',
  'report-component': 'report',
  dataset: 'dataset',
  patent: 'patent',
};

/**
 * Maps one CSL-JSON item or Crossref work; `source` names the format in `paper.source`; `adjust`
 * lets a reader add what its raw format knows beyond CSL (a BibTeX `eprint`, a RIS `L1` PDF link).
 */
export function mapCslItem(
  item: unknown,
  source: string,
  adjust?: (draft: PaperDraft) => void,
): ReturnType<typeof buildPaper> {
  if (!isObject(item)) return 'item is not a JSON object';
  const doi = firstText(item.DOI);
  const draft: PaperDraft = {
    title: flatten(firstText(item.title)),
    authors: Array.isArray(item.author) ? item.author.map(personName) : [],
    abstract: flatten(cleanText(item.abstract)),
    publication_date: dateOf(item),
    venue: flatten(firstText(item['container-title']) ?? eventName(item) ?? institutionName(item)),
    type: typeOf(item),
    url: cleanText(item.URL) ?? (doi ? `https://doi.org/${doi}` : null),
    pdf_url: openPdfLink(item),
    cited_by_count: toInteger(item['is-referenced-by-count']),
    identifiers: {
      doi,
      pmid: cleanText(item.PMID),
      pmcid: cleanText(item.PMCID),
      arxiv: arxivOf(item),
    },
  };
  adjust?.(draft);
  return buildPaper(draft, { source });
}

/** CSL writes some fields as a string, Crossref as an array of strings. */
function firstText(value: unknown): string | null {
  return Array.isArray(value) ? cleanText(value.find((entry) => cleanText(entry))) : cleanText(value);
}

/** Removes markup (`<jats:p>`, `<i>`) and decodes entities; a leading JATS title (`Abstract`) goes. */
export function flatten(text: string | null): string | null {
  if (!text) return null;
  if (!text.includes('<') && !text.includes('&')) return text;
  const withoutHeading = text.replace(/^\s*<(jats:)?title>[^<]*<\/(jats:)?title>/, '');
  const plain = withoutHeading
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_whole, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_whole, code: string) => String.fromCodePoint(Number.parseInt(code, 16)));
  // `&amp;` last, so `&amp;lt;` stays the text `&lt;`.
  return cleanText(
    decodeEntities(plain)
      .replace(/&amp;/g, '&')
      .replace(/\s+([,.;:)])/g, '$1')
      .replace(/\(\s+/g, '('),
  );
}

function personName(person: unknown): string | null {
  if (!isObject(person)) return null;
  const literal = cleanText(person.literal) ?? cleanText(person.name);
  if (literal) return literal;
  return cleanText(
    [person.given, person['non-dropping-particle'], person.family, person.suffix].filter(Boolean).join(' '),
  );
}

/** The first date that is known: published, print, online, issued, created (Crossref's order of truth). */
function dateOf(item: Json): string | null {
  for (const key of ['published', 'published-print', 'published-online', 'issued', 'created']) {
    const date = item[key];
    if (!isObject(date)) continue;
    const parts = Array.isArray(date['date-parts']) ? date['date-parts'][0] : null;
    if (Array.isArray(parts) && parts[0] !== null && parts[0] !== undefined) {
      const iso = isoDate(parts[0], parts[1], parts[2]);
      if (iso) return iso;
    }
    const raw = cleanText(date.raw) ?? cleanText(date.literal);
    const year = raw ? /\b(\d{4})\b/.exec(raw)?.[1] : null;
    if (year) return year;
  }
  return null;
}

function eventName(item: Json): string | null {
  if (isObject(item.event)) return cleanText(item.event.name);
  return cleanText(item['event-title']) ?? cleanText(item.event);
}

/** Posted content (bioRxiv, SSRN) names its server as the institution. */
function institutionName(item: Json): string | null {
  const institution = Array.isArray(item.institution) ? item.institution[0] : null;
  return isObject(institution) ? cleanText(institution.name) : cleanText(item.publisher);
}

function typeOf(item: Json): PaperType {
  const type = cleanText(item.type);
  if (type === 'posted-content' && cleanText(item.subtype) && item.subtype !== 'preprint') return 'other';
  return (type && types[type]) || 'other';
}

/** A PDF link is "open" when the work carries a Creative Commons licence (Crossref TDM links otherwise need a subscription). */
function openPdfLink(item: Json): string | null {
  const licences = Array.isArray(item.license) ? item.license : [];
  const open = licences.some(
    (licence) => isObject(licence) && /creativecommons\.org/i.test(String(licence.URL ?? '')),
  );
  if (!open || !Array.isArray(item.link)) return null;
  const pdf = item.link.find((link) => isObject(link) && link['content-type'] === 'application/pdf');
  return isObject(pdf) ? cleanText(pdf.URL) : null;
}

/** arXiv ids in CSL items: `arXiv:2101.00001` in `number`/`note`/`archive_location`, or an arXiv URL. */
function arxivOf(item: Json): string | null {
  for (const key of ['arxiv', 'number', 'archive_location', 'note', 'URL']) {
    const text = cleanText(item[key]);
    const match = text
      ? /(?:arxiv(?:\.org\/(?:abs|pdf)\/|:\s*))([a-z-]+\/\d{7}|\d{4}\.\d{4,5})/i.exec(text)
      : null;
    if (match?.[1]) return match[1];
  }
  return null;
}
