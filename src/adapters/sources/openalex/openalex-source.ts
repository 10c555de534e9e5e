import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeDoi } from '../../../domain/identifiers.js';
import type { Bibliographic, Paper, PaperType } from '../../../domain/paper.js';
import type {
  PaperSource,
  SourceCallOptions,
  SourceListOptions,
  SourcePage,
  SourceQuery,
} from '../../../ports/paper-source.js';
import { bibliographicRecord, lastSegment, paperRecord } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type OpenAlexWork, openAlexFields, openAlexListSchema, openAlexWorkSchema } from './openalex-api.js';

export interface OpenAlexSourceOptions {
  client: UpstreamClient;
  /** Default https://api.openalex.org. */
  baseUrl?: string;
  /** Contact address for the polite pool (`mailto` parameter). */
  mailto?: string;
}

/** OpenAlex works: search with filters and sort, lookup by DOI/PMID/PMCID/MAG/arXiv, the citation graph. */
export class OpenAlexSource implements PaperSource {
  readonly name = 'openalex';
  readonly fusionWeight = 1.0;
  readonly lookupTypes: readonly IdentifierType[] = ['DOI', 'PMID', 'PMCID', 'MAG', 'ARXIV'];
  private readonly baseUrl: string;

  constructor(private readonly options: OpenAlexSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://api.openalex.org').replace(/\/+$/, '');
  }

  async search(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const filters: string[] = [];
    if (query.startYear !== undefined) filters.push(`from_publication_date:${query.startYear}-01-01`);
    if (query.endYear !== undefined) filters.push(`to_publication_date:${query.endYear}-12-31`);
    if (query.peerReviewedOnly) filters.push('type:article|review');
    const parameters: Record<string, string> = { search: query.text, 'per-page': String(query.limit) };
    if (filters.length > 0) parameters.filter = filters.join(',');
    if (query.sort === 'cited_by_count') parameters.sort = 'cited_by_count:desc';
    if (query.sort === 'publication_date') parameters.sort = 'publication_date:desc';
    const list = await this.list(parameters, options.signal);
    return { papers: list.papers, total: list.total };
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    const key = workKey(identifier);
    if (!key) return null;
    const work = await this.options.client.getJson(
      this.url(`/works/${key}`, { select: openAlexFields }),
      openAlexWorkSchema,
      { signal: options.signal },
    );
    return work ? toPaper(work) : null;
  }

  async references(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    return this.graph('cited_by', identifier, options);
  }

  async citations(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    return this.graph('cites', identifier, options, 'cited_by_count:desc');
  }

  async related(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    return this.graph('related_to', identifier, options);
  }

  /** Works linked to the paper by an OpenAlex graph filter (`cites`, `cited_by`, `related_to`). */
  private async graph(
    filter: 'cites' | 'cited_by' | 'related_to',
    identifier: PaperIdentifier,
    options: SourceListOptions,
    sort?: string,
  ): Promise<Paper[]> {
    const paper = await this.lookup(identifier, options);
    const workId = paper?.identifiers?.openalex;
    if (!workId) return [];
    const parameters: Record<string, string> = {
      filter: `${filter}:${workId}`,
      'per-page': String(options.limit ?? 20),
    };
    if (sort) parameters.sort = sort;
    return (await this.list(parameters, options.signal)).papers;
  }

  private async list(parameters: Record<string, string>, signal: AbortSignal | undefined) {
    const body = await this.options.client.getJson(
      this.url('/works', { ...parameters, select: openAlexFields }),
      openAlexListSchema,
      { signal },
    );
    return { papers: (body?.results ?? []).map(toPaper), total: body?.meta?.count ?? null };
  }

  private url(path: string, parameters: Record<string, string>): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    if (this.options.mailto) url.searchParams.set('mailto', this.options.mailto);
    return url.toString();
  }
}

/** The `/works/{key}` form of an identifier (OpenAlex resolves external ids with a namespace prefix). */
function workKey(identifier: PaperIdentifier): string | null {
  const encode = (value: string) => encodeURIComponent(value).replace(/%2F/gi, '/').replace(/%3A/gi, ':');
  switch (identifier.type) {
    case 'DOI':
      return `doi:${encode(identifier.value)}`;
    case 'ARXIV':
      // arXiv registers DataCite DOIs for every preprint; OpenAlex indexes them.
      return `doi:10.48550/arxiv.${encode(identifier.value)}`;
    case 'PMID':
      return `pmid:${identifier.value}`;
    case 'PMCID':
      return `pmcid:${identifier.value}`;
    case 'MAG':
      return `mag:${identifier.value}`;
    default:
      return null;
  }
}

/** Rebuilds the abstract from OpenAlex's inverted index (word → positions). */
export function abstractFromInvertedIndex(index: Record<string, number[]> | null | undefined): string | null {
  if (!index) return null;
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) {
    for (const position of positions) words[position] = word;
  }
  const text = words.filter((word) => word !== undefined).join(' ');
  return text.length > 0 ? text : null;
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
const openAlexTypes: Record<string, PaperType> = {
  article: 'journal-article',
  review: 'journal-article',
  preprint: 'preprint',
  book: 'book',
  'book-chapter': 'book-chapter',
  dissertation: 'thesis',
  report: 'report',
  dataset: 'dataset',
  editorial: 'editorial',
  letter: 'editorial',
};

function paperType(work: OpenAlexWork): PaperType | null {
  if (work.type === 'preprint') return 'preprint';
  const fromCrossref = work.type_crossref ? crossrefTypes[work.type_crossref] : undefined;
  const fromOpenAlex = work.type ? openAlexTypes[work.type] : undefined;
  return fromCrossref ?? fromOpenAlex ?? (work.type ? 'other' : null);
}

function toPaper(work: OpenAlexWork): Paper {
  const doi = normalizeDoi(work.doi ?? work.ids?.doi ?? null);
  const oaUrl = work.open_access?.oa_url;
  const pdfUrl =
    work.best_oa_location?.pdf_url ??
    (work.primary_location?.is_oa ? work.primary_location.pdf_url : null) ??
    (oaUrl && /\.pdf($|\?)/i.test(oaUrl) ? oaUrl : null);
  const pmcid = lastSegment(work.ids?.pmcid);
  const landing = work.primary_location?.landing_page_url ?? null;
  return paperRecord({
    source: 'openalex',
    title: work.title ?? work.display_name ?? '',
    authors: (work.authorships ?? []).flatMap((authorship) =>
      authorship.author?.display_name ? [authorship.author.display_name] : [],
    ),
    abstract: abstractFromInvertedIndex(work.abstract_inverted_index),
    publication_date: work.publication_date ?? (work.publication_year ? String(work.publication_year) : null),
    year: work.publication_year ?? null,
    cited_by_count: work.cited_by_count ?? null,
    url: doi ? `https://doi.org/${doi}` : (landing ?? work.id ?? null),
    landing_page_url: landing,
    doi,
    venue: work.primary_location?.source?.display_name ?? null,
    type: paperType(work),
    pdf_url: pdfUrl ?? null,
    identifiers: {
      openalex: lastSegment(work.id ?? work.ids?.openalex),
      mag: work.ids?.mag === null || work.ids?.mag === undefined ? null : String(work.ids.mag),
      pmid: lastSegment(work.ids?.pmid),
      pmcid: pmcid ? `PMC${pmcid.replace(/^PMC/i, '')}` : null,
      arxiv: doi?.startsWith('10.48550/arxiv.') ? doi.slice('10.48550/arxiv.'.length) : null,
    },
    bibliographic: bibliographicOf(work),
  });
}

/** Volume, issue, pages, ISSN and publisher (decision 0049); undefined when OpenAlex has none. */
function bibliographicOf(work: OpenAlexWork): Bibliographic | undefined {
  const { volume, issue, first_page: first, last_page: last } = work.biblio ?? {};
  const venue = work.primary_location?.source;
  return bibliographicRecord({
    volume: volume ?? null,
    issue: issue ?? null,
    pages: first ? (last && last !== first ? `${first}–${last}` : first) : null,
    issn: venue?.issn_l ?? null,
    publisher: venue?.host_organization_name ?? null,
  });
}
