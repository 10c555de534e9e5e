import type { Bibliographic, Paper, PaperIdentifiers } from '../../../domain/paper.js';

/** Fields an adapter fills; everything the spec requires but the source lacks becomes null. */
export type PaperFields = Partial<Paper> & { title: string; source: string };

/**
 * Builds a `Paper` from what a source knows: null for unknown spec fields, empty identifiers
 * dropped, `pdf_id` derived from `pdf_url` (`PDF_URL:<url>`, readable by /api/fulltext).
 */
export function paperRecord(fields: PaperFields): Paper {
  const identifiers = compactIdentifiers({
    ...fields.identifiers,
    doi: fields.doi ?? fields.identifiers?.doi,
  });
  const paper: Paper = {
    ...fields,
    title: collapse(fields.title),
    authors: fields.authors ?? [],
    abstract: fields.abstract ? collapse(fields.abstract) || null : null,
    publication_date: fields.publication_date ?? (fields.year ? String(fields.year) : null),
    cited_by_count: fields.cited_by_count ?? null,
    url: fields.url ?? null,
    ss_id: fields.ss_id ?? identifiers.ss_id ?? null,
    doi: fields.doi ?? identifiers.doi ?? null,
    year: fields.year ?? yearOf(fields.publication_date),
    identifiers,
  };
  if (paper.pdf_url) paper.pdf_id = `PDF_URL:${paper.pdf_url}`;
  return paper;
}

function compactIdentifiers(identifiers: PaperIdentifiers): PaperIdentifiers {
  const compact: Record<string, string> = {};
  for (const [key, value] of Object.entries(identifiers)) {
    if (value !== null && value !== undefined && String(value).trim() !== '')
      compact[key] = String(value).trim();
  }
  return compact as PaperIdentifiers;
}

/** The year of an ISO date or year text, or null. */
export function yearOf(date: string | null | undefined): number | null {
  const match = date ? /^(\d{4})/.exec(date) : null;
  return match ? Number(match[1]) : null;
}

/** `YYYY-MM-DD` (or `YYYY-MM`, `YYYY`) from date parts such as Crossref's `[[2015, 12, 21]]`. */
export function dateFromParts(parts: ReadonlyArray<number | null> | null | undefined): string | null {
  if (!parts || parts[0] === null || parts[0] === undefined) return null;
  return parts
    .filter((part): part is number => typeof part === 'number')
    .slice(0, 3)
    .map((part, index) => (index === 0 ? String(part) : String(part).padStart(2, '0')))
    .join('-');
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Plain text from a fragment with markup (Crossref's JATS abstracts, `<b>` snippets). */
export function plainText(markup: string | null | undefined): string | null {
  if (!markup) return null;
  const text = markup
    .replace(/<jats:title>[^<]*<\/jats:title>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X'))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
      return entities[name.toLowerCase()] ?? whole;
    });
  return collapse(text) || null;
}

/** Single spaces, trimmed. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A url that points at a PDF rather than a landing page (doi.org links are landing pages). */
export function pdfUrlOrNull(url: string | null | undefined): string | null {
  if (!url || !/^https?:\/\//i.test(url)) return null;
  if (/^https?:\/\/(dx\.)?doi\.org\//i.test(url)) return null;
  return url;
}

/** The text after the last `/` of an id url (`https://openalex.org/W123` → `W123`). */
export function lastSegment(url: string | null | undefined): string | null {
  if (!url) return null;
  const segment = url.replace(/\/+$/, '').split('/').pop();
  return segment && segment.length > 0 ? segment : null;
}

/** "Alexandria/<version> (mailto:…)": the polite-pool user agent. */
export function userAgent(contactEmail: string | undefined): string {
  return contactEmail
    ? `Alexandria (research literature service; mailto:${contactEmail})`
    : 'Alexandria (research literature service)';
}

/**
 * A source's bibliographic fields (decision 0049) without the ones it lacks; undefined when it has
 * none, so a record without any carries no empty object.
 */
export function bibliographicRecord(fields: Bibliographic): Bibliographic | undefined {
  const present = Object.entries(fields).filter(([, value]) => value !== null && value !== undefined);
  return present.length > 0 ? (Object.fromEntries(present) as Bibliographic) : undefined;
}
