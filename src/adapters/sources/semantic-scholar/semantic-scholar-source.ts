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
import { paperRecord, pdfUrlOrNull } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import {
  type S2Paper,
  s2CitationsSchema,
  s2Fields,
  s2PaperSchema,
  s2RecommendationsSchema,
  s2ReferencesSchema,
  s2SearchSchema,
} from './semantic-scholar-api.js';

export interface SemanticScholarSourceOptions {
  client: UpstreamClient;
  /** Default https://api.semanticscholar.org. */
  baseUrl?: string;
}

/**
 * Semantic Scholar Graph API: relevance search (bulk search when sorting), a paper by any external
 * id (`DOI:`, `ARXIV:`, `PMID:`, `PMCID:`, `MAG:`, `ACL:`, `CorpusId:`, or the S2 paper id, which
 * is what `ss_id` holds), references, citations and recommendations. The API key travels in the
 * client's `x-api-key` header.
 */
export class SemanticScholarSource implements PaperSource {
  readonly name = 'semantic_scholar';
  readonly fusionWeight = 1.0;
  readonly lookupTypes: readonly IdentifierType[] = ['DOI', 'ARXIV', 'PMID', 'PMCID', 'MAG', 'ACL', 'SS_ID'];
  private readonly baseUrl: string;

  constructor(private readonly options: SemanticScholarSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://api.semanticscholar.org').replace(/\/+$/, '');
  }

  async search(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const parameters: Record<string, string> = {
      query: query.text,
      fields: s2Fields,
      limit: String(query.limit),
    };
    if (query.startYear !== undefined || query.endYear !== undefined) {
      parameters.year = `${query.startYear ?? ''}-${query.endYear ?? ''}`;
    }
    if (query.peerReviewedOnly) parameters.publicationTypes = 'JournalArticle,Conference,Review';
    // Relevance search cannot sort; bulk search can (and ignores `limit`, so we cut its page).
    const sort = {
      relevance: null,
      cited_by_count: 'citationCount:desc',
      publication_date: 'publicationDate:desc',
    }[query.sort];
    const path = sort ? '/graph/v1/paper/search/bulk' : '/graph/v1/paper/search';
    if (sort) {
      // Bulk search pages by token (1,000 a page) and takes no limit.
      parameters.sort = sort;
      delete parameters.limit;
    } else {
      parameters.offset = '0';
    }
    const body = await this.options.client.getJson(this.url(path, parameters), s2SearchSchema, {
      signal: options.signal,
    });
    return {
      papers: toPapers(body?.data ?? []).slice(0, query.limit),
      total: body?.total ?? null,
    };
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    const paper = await this.options.client.getJson(
      this.url(`/graph/v1/paper/${paperKey(identifier)}`, { fields: s2Fields }),
      s2PaperSchema,
      { signal: options.signal },
    );
    return paper ? (toPapers([paper])[0] ?? null) : null;
  }

  async references(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    const body = await this.options.client.getJson(
      this.url(`/graph/v1/paper/${paperKey(identifier)}/references`, {
        fields: s2Fields,
        limit: String(options.limit ?? 20),
      }),
      s2ReferencesSchema,
      { signal: options.signal },
    );
    return toPapers((body?.data ?? []).map((item) => item.citedPaper));
  }

  async citations(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    const body = await this.options.client.getJson(
      this.url(`/graph/v1/paper/${paperKey(identifier)}/citations`, {
        fields: s2Fields,
        limit: String(options.limit ?? 20),
      }),
      s2CitationsSchema,
      { signal: options.signal },
    );
    return toPapers((body?.data ?? []).map((item) => item.citingPaper));
  }

  async related(identifier: PaperIdentifier, options: SourceListOptions = {}): Promise<Paper[]> {
    const body = await this.options.client.getJson(
      this.url(`/recommendations/v1/papers/forpaper/${paperKey(identifier)}`, {
        fields: s2Fields,
        limit: String(options.limit ?? 20),
      }),
      s2RecommendationsSchema,
      { signal: options.signal },
    );
    return toPapers(body?.recommendedPapers ?? []);
  }

  private url(path: string, parameters: Record<string, string>): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    return url.toString();
  }
}

/** The S2 path form of a typed identifier (`DOI:10.x/y`, `CorpusId:123`, or the 40-hex paper id). */
export function paperKey(identifier: PaperIdentifier): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%2F/gi, '/');
  switch (identifier.type) {
    case 'DOI':
      return `DOI:${encode(identifier.value)}`;
    case 'ARXIV':
      return `ARXIV:${identifier.value}`;
    case 'PMID':
      return `PMID:${identifier.value}`;
    case 'PMCID':
      return `PMCID:${identifier.value.replace(/^PMC/i, '')}`;
    case 'MAG':
      return `MAG:${identifier.value}`;
    case 'ACL':
      return `ACL:${encode(identifier.value)}`;
    case 'SS_ID':
      return identifier.value;
  }
}

const s2Types: Array<[string, PaperType]> = [
  ['Conference', 'conference-paper'],
  ['JournalArticle', 'journal-article'],
  ['Review', 'journal-article'],
  ['MetaAnalysis', 'journal-article'],
  ['ClinicalTrial', 'journal-article'],
  ['CaseReport', 'journal-article'],
  ['Study', 'journal-article'],
  ['Book', 'book'],
  ['BookSection', 'book-chapter'],
  ['Dataset', 'dataset'],
  ['Editorial', 'editorial'],
  ['LettersAndComments', 'editorial'],
  ['News', 'other'],
];

function paperType(paper: S2Paper): PaperType | null {
  const types = paper.publicationTypes ?? [];
  for (const [name, type] of s2Types) if (types.includes(name)) return type;
  if (/arxiv|biorxiv|medrxiv|ssrn/i.test(paper.venue ?? '')) return 'preprint';
  return null;
}

function externalId(paper: S2Paper, name: string): string | null {
  const value = paper.externalIds?.[name];
  return value === null || value === undefined || value === '' ? null : String(value);
}

/** Maps S2 papers to records, dropping entries without a title (S2 returns some for deleted papers). */
function toPapers(papers: ReadonlyArray<S2Paper | null | undefined>): Paper[] {
  return papers.flatMap((paper) => {
    if (!paper?.title) return [];
    const pmcid = externalId(paper, 'PubMedCentral');
    return [
      paperRecord({
        source: 'semantic_scholar',
        title: paper.title,
        authors: (paper.authors ?? []).flatMap((author) => (author.name ? [author.name] : [])),
        abstract: paper.abstract ?? null,
        publication_date: paper.publicationDate ?? (paper.year ? String(paper.year) : null),
        year: paper.year ?? null,
        cited_by_count: paper.citationCount ?? null,
        url: paper.url ?? null,
        ss_id: paper.paperId ?? null,
        doi: normalizeDoi(externalId(paper, 'DOI')),
        venue: paper.journal?.name || paper.venue || null,
        type: paperType(paper),
        pdf_url: pdfUrlOrNull(paper.openAccessPdf?.url),
        identifiers: {
          ss_id: paper.paperId ?? null,
          corpus_id: externalId(paper, 'CorpusId'),
          arxiv: externalId(paper, 'ArXiv'),
          pmid: externalId(paper, 'PubMed'),
          pmcid: pmcid ? `PMC${pmcid.replace(/^PMC/i, '')}` : null,
          mag: externalId(paper, 'MAG'),
          acl: externalId(paper, 'ACL'),
        },
        bibliographic: bibliographicOf(paper),
      }),
    ];
  });
}

/** The journal's volume and pages (decision 0049); undefined when S2 has neither. */
function bibliographicOf(paper: S2Paper): Bibliographic | undefined {
  const volume = paper.journal?.volume?.trim() || null;
  const pages = paper.journal?.pages?.trim().replace(/(\d)\s*-+\s*(\d)/, '$1–$2') || null;
  if (!volume && !pages) return undefined;
  return { ...(volume ? { volume } : {}), ...(pages ? { pages } : {}) };
}
