import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeDoi } from '../../../domain/identifiers.js';
import type { Bibliographic, Paper, PaperType } from '../../../domain/paper.js';
import type { PaperSource, SourceCallOptions, SourcePage, SourceQuery } from '../../../ports/paper-source.js';
import { bibliographicRecord, dateFromParts, paperRecord, plainText } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import {
  type CrossrefWork,
  crossrefListResponseSchema,
  crossrefSelect,
  crossrefWorkResponseSchema,
} from './crossref-api.js';

export interface CrossrefSourceOptions {
  client: UpstreamClient;
  /** Default https://api.crossref.org. */
  baseUrl?: string;
  /** Contact address for the polite pool (`mailto` parameter). */
  mailto?: string;
}

/** Crossref REST: DOI lookup and bibliographic queries (polite pool with `mailto`). */
export class CrossrefSource implements PaperSource {
  readonly name = 'crossref';
  readonly fusionWeight = 0.7;
  readonly lookupTypes: readonly IdentifierType[] = ['DOI'];
  private readonly baseUrl: string;

  constructor(private readonly options: CrossrefSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://api.crossref.org').replace(/\/+$/, '');
  }

  async search(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const filters: string[] = [];
    if (query.startYear !== undefined) filters.push(`from-pub-date:${query.startYear}`);
    if (query.endYear !== undefined) filters.push(`until-pub-date:${query.endYear}`);
    if (query.peerReviewedOnly) filters.push('type:journal-article', 'type:proceedings-article');
    const parameters: Record<string, string> = {
      'query.bibliographic': query.text,
      rows: String(query.limit),
      select: crossrefSelect,
    };
    if (filters.length > 0) parameters.filter = filters.join(',');
    if (query.sort !== 'relevance') {
      parameters.sort = query.sort === 'cited_by_count' ? 'is-referenced-by-count' : 'published';
      parameters.order = 'desc';
    }
    const body = await this.options.client.getJson(
      this.url('/works', parameters),
      crossrefListResponseSchema,
      {
        signal: options.signal,
      },
    );
    return {
      papers: (body?.message.items ?? []).flatMap(toPaper),
      total: body?.message['total-results'] ?? null,
    };
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    if (identifier.type !== 'DOI') return null;
    const body = await this.options.client.getJson(
      this.url(`/works/${encodeURIComponent(identifier.value)}`, {}),
      crossrefWorkResponseSchema,
      { signal: options.signal },
    );
    return body ? (toPaper(body.message)[0] ?? null) : null;
  }

  private url(path: string, parameters: Record<string, string>): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    if (this.options.mailto) url.searchParams.set('mailto', this.options.mailto);
    return url.toString();
  }
}

const crossrefTypes: Record<string, PaperType> = {
  'journal-article': 'journal-article',
  'proceedings-article': 'conference-paper',
  'posted-content': 'preprint',
  book: 'book',
  monograph: 'book',
  'edited-book': 'book',
  'book-chapter': 'book-chapter',
  dissertation: 'thesis',
  report: 'report',
  dataset: 'dataset',
};

function toPaper(work: CrossrefWork): Paper[] {
  const title = work.title?.[0];
  if (!title) return [];
  const doi = normalizeDoi(work.DOI);
  const date = dateFromParts(work.issued?.['date-parts']?.[0] ?? work.published?.['date-parts']?.[0]);
  return [
    paperRecord({
      source: 'crossref',
      title,
      authors: (work.author ?? []).flatMap((author) => {
        const name = author.name ?? [author.given, author.family].filter(Boolean).join(' ');
        return name ? [name] : [];
      }),
      abstract: plainText(work.abstract),
      publication_date: date,
      cited_by_count: work['is-referenced-by-count'] ?? null,
      url: doi ? `https://doi.org/${doi}` : (work.URL ?? null),
      landing_page_url: work.resource?.primary?.URL ?? null,
      doi,
      venue: work['container-title']?.[0] ?? null,
      type: work.type ? (crossrefTypes[work.type] ?? 'other') : null,
      bibliographic: bibliographicOf(work),
    }),
  ];
}

/** The reference-file fields Crossref has (decision 0049); undefined when it has none. */
function bibliographicOf(work: CrossrefWork): Bibliographic | undefined {
  const person = (author: { given?: string | null; family?: string | null; name?: string | null }) =>
    author.name ? { literal: author.name } : { family: author.family ?? null, given: author.given ?? null };
  return bibliographicRecord({
    author_names: work.author?.length ? work.author.map(person) : null,
    editors: work.editor?.length ? work.editor.map(person) : null,
    volume: work.volume ?? null,
    issue: work.issue ?? null,
    pages: work.page?.replace(/(\d)\s*-+\s*(\d)/, '$1–$2') ?? work['article-number'] ?? null,
    publisher: work.publisher ?? null,
    place: work['publisher-location'] ?? null,
    isbn: work.ISBN?.[0] ?? null,
    issn: work.ISSN?.[0] ?? null,
    edition: work['edition-number'] ?? null,
  });
}
