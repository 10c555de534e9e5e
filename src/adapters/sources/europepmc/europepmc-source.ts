import { UpstreamError } from '../../../domain/errors.js';
import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeDoi, normalizePmcid } from '../../../domain/identifiers.js';
import type { Bibliographic, Paper, PaperType } from '../../../domain/paper.js';
import type { FullTextQuery, FullTextSource, SourcedFullText } from '../../../ports/full-text-source.js';
import type { PaperSource, SourceCallOptions, SourcePage, SourceQuery } from '../../../ports/paper-source.js';
import { jatsToMarkdown } from '../shared/jats-markdown.js';
import { bibliographicRecord, paperRecord, plainText } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type EuropePmcResult, europePmcSearchSchema } from './europepmc-api.js';

export interface EuropePmcSourceOptions {
  client: UpstreamClient;
  /** Default https://www.ebi.ac.uk/europepmc/webservices/rest. */
  baseUrl?: string;
}

/**
 * Europe PMC: search (PubMed, PMC, preprints), lookup by PMID/PMCID/DOI, and open-access full text
 * as JATS XML turned into markdown. As a `FullTextSource` it lets /api/fulltext read PMC articles
 * without parsing their PDF.
 */
export class EuropePmcSource implements PaperSource, FullTextSource {
  readonly name = 'europepmc';
  readonly fusionWeight = 0.8;
  readonly lookupTypes: readonly IdentifierType[] = ['PMID', 'PMCID', 'DOI'];
  private readonly baseUrl: string;

  constructor(private readonly options: EuropePmcSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://www.ebi.ac.uk/europepmc/webservices/rest').replace(
      /\/+$/,
      '',
    );
  }

  async search(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const clauses = [`(${query.text})`];
    if (query.startYear !== undefined || query.endYear !== undefined) {
      clauses.push(`PUB_YEAR:[${query.startYear ?? 1000} TO ${query.endYear ?? 3000}]`);
    }
    if (query.peerReviewedOnly) clauses.push('NOT SRC:PPR');
    const sort = { relevance: null, cited_by_count: 'CITED desc', publication_date: 'P_PDATE_D desc' }[
      query.sort
    ];
    return this.query(clauses.join(' AND '), query.limit, sort, options.signal);
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    const clause =
      identifier.type === 'PMID'
        ? `EXT_ID:${identifier.value} AND SRC:MED`
        : identifier.type === 'PMCID'
          ? `PMCID:${identifier.value}`
          : identifier.type === 'DOI'
            ? `DOI:"${identifier.value}"`
            : null;
    if (!clause) return null;
    const { papers } = await this.query(clause, 1, null, options.signal);
    const matches = (paper: Paper) =>
      identifier.type === 'PMID'
        ? paper.identifiers?.pmid === identifier.value
        : identifier.type === 'PMCID'
          ? paper.identifiers?.pmcid === identifier.value
          : paper.doi === identifier.value;
    return papers.find(matches) ?? papers[0] ?? null;
  }

  keyFor(query: FullTextQuery): string | null {
    const fromUrl = query.url ? /\/(?:pmc\/articles|articles)\/(PMC\d+)/i.exec(query.url)?.[1] : undefined;
    return normalizePmcid(query.identifiers.pmcid ?? fromUrl ?? null);
  }

  async fetch(query: FullTextQuery, options: { signal?: AbortSignal } = {}): Promise<SourcedFullText | null> {
    const pmcid = this.keyFor(query);
    if (!pmcid) return null;
    const xml = await this.options.client.getText(`${this.baseUrl}/${pmcid}/fullTextXML`, {
      accept: 'application/xml',
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!xml) return null;
    let converted: ReturnType<typeof jatsToMarkdown>;
    try {
      converted = jatsToMarkdown(xml);
    } catch (error) {
      throw new UpstreamError('europepmc', `europepmc full text of ${pmcid} is not JATS XML`, {
        retryable: false,
        cause: error,
      });
    }
    if (converted.markdown.length === 0) return null;
    return converted.title
      ? { markdown: converted.markdown, title: converted.title }
      : { markdown: converted.markdown };
  }

  private async query(text: string, limit: number, sort: string | null, signal: AbortSignal | undefined) {
    const url = new URL(`${this.baseUrl}/search`);
    url.searchParams.set('query', text);
    url.searchParams.set('format', 'json');
    url.searchParams.set('resultType', 'core');
    url.searchParams.set('pageSize', String(limit));
    if (sort) url.searchParams.set('sort', sort);
    const body = await this.options.client.getJson(
      url.toString(),
      europePmcSearchSchema,
      signal ? { signal } : {},
    );
    return {
      papers: (body?.resultList?.result ?? []).flatMap(toPaper),
      total: body?.hitCount ?? null,
    };
  }
}

function paperType(result: EuropePmcResult): PaperType | null {
  if (result.source === 'PPR') return 'preprint';
  const types = [...(result.pubTypeList?.pubType ?? []), ...(result.pubType ? [result.pubType] : [])].map(
    (type) => type.toLowerCase(),
  );
  if (types.length === 0) return null;
  if (types.some((type) => type.includes('erratum') || type === 'correction')) return 'other';
  if (types.some((type) => type.includes('editorial') || type === 'news' || type === 'comment'))
    return 'editorial';
  if (types.some((type) => type.includes('preprint'))) return 'preprint';
  if (types.some((type) => type.includes('article') || type.includes('review'))) return 'journal-article';
  return 'other';
}

function toPaper(result: EuropePmcResult): Paper[] {
  if (!result.title) return [];
  const pmcid = normalizePmcid(result.pmcid ?? null);
  const pdf = result.fullTextUrlList?.fullTextUrl?.find(
    (link) =>
      link.documentStyle === 'pdf' && (link.availabilityCode === 'OA' || link.availabilityCode === 'F'),
  )?.url;
  const authors =
    result.authorList?.author?.flatMap((author) => (author.fullName ? [author.fullName] : [])) ??
    (result.authorString ?? '')
      .replace(/\.$/, '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  const pmid = result.pmid ?? (result.source === 'MED' ? result.id : null);
  return [
    paperRecord({
      source: 'europepmc',
      title: plainText(result.title) ?? result.title,
      authors,
      abstract: plainText(result.abstractText),
      publication_date: result.firstPublicationDate ?? result.pubYear ?? null,
      cited_by_count: result.citedByCount ?? null,
      url: pmcid
        ? `https://europepmc.org/article/PMC/${pmcid}`
        : pmid
          ? `https://europepmc.org/article/MED/${pmid}`
          : null,
      doi: normalizeDoi(result.doi ?? null),
      venue: result.journalInfo?.journal?.title ?? result.journalTitle ?? null,
      type: paperType(result),
      pdf_url: pdf ?? null,
      identifiers: { pmid, pmcid },
      bibliographic: bibliographicOf(result),
    }),
  ];
}

/** Volume, issue, pages and ISSN (decision 0049); undefined when the result has none. */
function bibliographicOf(result: EuropePmcResult): Bibliographic | undefined {
  const issn = result.journalIssn?.split(';')[0]?.trim().toUpperCase();
  return bibliographicRecord({
    volume: result.journalVolume ?? null,
    issue: result.issue ?? null,
    pages: result.pageInfo?.replace(/(\d)\s*-+\s*(\d)/, '$1–$2') ?? null,
    issn: issn || null,
  });
}
