import { UpstreamError } from '../../../domain/errors.js';
import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeArxivId, normalizeDoi } from '../../../domain/identifiers.js';
import type { Paper } from '../../../domain/paper.js';
import type { PaperSource, SourceCallOptions, SourcePage, SourceQuery } from '../../../ports/paper-source.js';
import { collapse, paperRecord } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type ArxivEntry, parseArxivFeed } from './arxiv-api.js';

export interface ArxivSourceOptions {
  client: UpstreamClient;
  /** Default https://export.arxiv.org/api/query. */
  baseUrl?: string;
}

/**
 * The arXiv API (Atom): search and id lookup. Every record carries its PDF link, so arXiv papers
 * are always readable through /api/fulltext. arXiv asks for one request every ~3 s; the client's
 * rate gate enforces it.
 */
export class ArxivSource implements PaperSource {
  readonly name = 'arxiv';
  readonly fusionWeight = 0.8;
  /** arXiv ids only; `lookup` also takes an arXiv DataCite DOI (10.48550/arxiv.…), which OpenAlex and S2 resolve too. */
  readonly lookupTypes: readonly IdentifierType[] = ['ARXIV'];
  private readonly baseUrl: string;

  constructor(private readonly options: ArxivSourceOptions) {
    this.baseUrl = options.baseUrl ?? 'https://export.arxiv.org/api/query';
  }

  async search(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const terms = query.text
      .split(/[^\p{L}\p{N}-]+/u)
      .filter((term) => term.length > 1)
      .slice(0, 8)
      .map((term) => `all:${term}`);
    if (terms.length === 0) return { papers: [], total: 0 };
    if (query.startYear !== undefined || query.endYear !== undefined) {
      terms.push(`submittedDate:[${query.startYear ?? 1991}01010000 TO ${query.endYear ?? 2999}12312359]`);
    }
    const feed = await this.feed(
      {
        search_query: terms.join(' AND '),
        sortBy: query.sort === 'publication_date' ? 'submittedDate' : 'relevance',
        sortOrder: 'descending',
        start: '0',
        max_results: String(query.limit),
      },
      options.signal,
    );
    return feed ? { papers: feed.papers, total: feed.total } : { papers: [], total: 0 };
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    const id =
      identifier.type === 'ARXIV'
        ? identifier.value
        : identifier.type === 'DOI' && identifier.value.startsWith('10.48550/arxiv.')
          ? normalizeArxivId(identifier.value.slice('10.48550/arxiv.'.length))
          : null;
    if (!id) return null;
    const feed = await this.feed({ id_list: id, start: '0', max_results: '1' }, options.signal);
    return feed?.papers[0] ?? null;
  }

  private async feed(parameters: Record<string, string>, signal: AbortSignal | undefined) {
    const url = new URL(this.baseUrl);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    // arXiv answers a malformed id with HTTP 400 and an Atom error entry: an answer, not an outage.
    const response = await this.options.client.get(url.toString(), {
      accept: 'application/atom+xml',
      answerStatuses: [400, 404],
      ...(signal ? { signal } : {}),
    });
    if (response.status === 404) return null;
    let feed: ReturnType<typeof parseArxivFeed>;
    try {
      feed = parseArxivFeed(response.body);
    } catch {
      throw new UpstreamError('arxiv', 'arxiv answered with something other than an Atom feed', {
        retryable: false,
      });
    }
    const entries = feed.feed.entry ?? [];
    if (response.status === 400 || entries.some((entry) => entry.id.includes('/api/errors'))) return null;
    const total = Number(feed.feed.totalResults ?? Number.NaN);
    return { papers: entries.flatMap(toPaper), total: Number.isFinite(total) ? total : null };
  }
}

function toPaper(entry: ArxivEntry): Paper[] {
  const id = normalizeArxivId(entry.id);
  if (!id || !entry.title) return [];
  const pdfLink = entry.link?.find((link) => link.title === 'pdf' || link.type === 'application/pdf')?.href;
  const published = entry.published ? entry.published.slice(0, 10) : null;
  const doi = normalizeDoi(entry.doi ?? null);
  const journal = entry.journal_ref ? collapse(entry.journal_ref) : null;
  return [
    paperRecord({
      source: 'arxiv',
      title: entry.title,
      authors: (entry.author ?? []).flatMap((author) => (author.name ? [collapse(author.name)] : [])),
      abstract: entry.summary ?? null,
      publication_date: published,
      url: `https://arxiv.org/abs/${id}`,
      landing_page_url: `https://arxiv.org/abs/${id}`,
      doi,
      venue: journal ?? 'arXiv',
      // An entry that names its journal version stands for a reviewed paper.
      type: doi || journal ? 'journal-article' : 'preprint',
      pdf_url: (pdfLink ?? `https://arxiv.org/pdf/${id}`).replace(/^http:/, 'https:'),
      identifiers: { arxiv: id },
      ...(entry.primary_category?.term
        ? { bibliographic: { arxiv_class: entry.primary_category.term } }
        : {}),
    }),
  ];
}
