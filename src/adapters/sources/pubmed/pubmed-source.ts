import { UpstreamError } from '../../../domain/errors.js';
import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeDoi, normalizePmcid } from '../../../domain/identifiers.js';
import type { Bibliographic, Paper, PaperType } from '../../../domain/paper.js';
import type { PaperSource, SourceCallOptions } from '../../../ports/paper-source.js';
import { bibliographicRecord, paperRecord } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type PubmedArticle, parsePubmedArticles } from './pubmed-api.js';

export interface PubmedSourceOptions {
  client: UpstreamClient;
  /** Default https://eutils.ncbi.nlm.nih.gov/entrez/eutils. */
  baseUrl?: string;
  /** NCBI asks callers to identify themselves with `tool` and `email`. */
  email?: string;
  /** NCBI API key (10 requests/s instead of 3). */
  apiKey?: string;
}

/** PubMed E-utilities: the MEDLINE record of a PMID (efetch XML). */
export class PubmedSource implements PaperSource {
  readonly name = 'pubmed';
  readonly fusionWeight = 0.6;
  readonly lookupTypes: readonly IdentifierType[] = ['PMID'];
  private readonly baseUrl: string;

  constructor(private readonly options: PubmedSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://eutils.ncbi.nlm.nih.gov/entrez/eutils').replace(/\/+$/, '');
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    if (identifier.type !== 'PMID') return null;
    const url = new URL(`${this.baseUrl}/efetch.fcgi`);
    url.searchParams.set('db', 'pubmed');
    url.searchParams.set('id', identifier.value);
    url.searchParams.set('retmode', 'xml');
    url.searchParams.set('tool', 'alexandria');
    if (this.options.email) url.searchParams.set('email', this.options.email);
    if (this.options.apiKey) url.searchParams.set('api_key', this.options.apiKey);
    // efetch answers an unknown PMID with 400 or an empty set, depending on the id.
    const response = await this.options.client.get(url.toString(), {
      accept: 'application/xml',
      answerStatuses: [400, 404],
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (response.status !== 200) return null;
    let articles: PubmedArticle[];
    try {
      articles = parsePubmedArticles(response.body);
    } catch (error) {
      throw new UpstreamError('pubmed', 'pubmed answered with something other than PubMed XML', {
        retryable: false,
        cause: error,
      });
    }
    const article = articles.find((candidate) => candidate.pmid === identifier.value) ?? null;
    return article ? toPaper(article) : null;
  }
}

const months: Record<string, string> = {
  jan: '01',
  feb: '02',
  mar: '03',
  apr: '04',
  may: '05',
  jun: '06',
  jul: '07',
  aug: '08',
  sep: '09',
  oct: '10',
  nov: '11',
  dec: '12',
};

function publicationDate(article: PubmedArticle): string | null {
  if (!article.year) return article.medlineDate ? (/\d{4}/.exec(article.medlineDate)?.[0] ?? null) : null;
  const month = article.month
    ? /^\d+$/.test(article.month)
      ? article.month.padStart(2, '0')
      : months[article.month.slice(0, 3).toLowerCase()]
    : undefined;
  if (!month) return article.year;
  return article.day
    ? `${article.year}-${month}-${article.day.padStart(2, '0')}`
    : `${article.year}-${month}`;
}

function paperType(types: string[]): PaperType | null {
  const lower = types.map((type) => type.toLowerCase());
  if (lower.some((type) => type === 'preprint')) return 'preprint';
  if (lower.some((type) => type === 'editorial' || type === 'comment' || type === 'news')) return 'editorial';
  if (lower.some((type) => type.includes('erratum'))) return 'other';
  if (lower.some((type) => type === 'journal article' || type === 'review')) return 'journal-article';
  return types.length > 0 ? 'other' : null;
}

function toPaper(article: PubmedArticle): Paper | null {
  if (!article.title) return null;
  return paperRecord({
    source: 'pubmed',
    title: article.title,
    authors: article.authors,
    abstract: article.abstract ?? null,
    publication_date: publicationDate(article),
    url: `https://pubmed.ncbi.nlm.nih.gov/${article.pmid}/`,
    doi: normalizeDoi(article.doi ?? null),
    venue: article.journal ?? null,
    type: paperType(article.publicationTypes),
    identifiers: { pmid: article.pmid, pmcid: normalizePmcid(article.pmcid ?? null) },
    bibliographic: bibliographicOf(article),
  });
}

/** Volume, issue, pages, ISSN and keywords (decision 0049); undefined when the record has none. */
function bibliographicOf(article: PubmedArticle): Bibliographic | undefined {
  return bibliographicRecord({
    volume: article.volume ?? null,
    issue: article.issue ?? null,
    pages: article.pages ? medlinePages(article.pages) : null,
    issn: article.issn ?? null,
    keywords: article.keywords.length > 0 ? article.keywords : null,
  });
}

/** MEDLINE's page range with the end written out: "113-25" → "113–125". */
function medlinePages(pages: string): string {
  const match = /^(\d+)\s*-\s*(\d+)$/.exec(pages.trim());
  if (!match) return pages.trim();
  const [, start = '', end = ''] = match;
  const full = end.length < start.length ? start.slice(0, start.length - end.length) + end : end;
  return `${start}–${full}`;
}
