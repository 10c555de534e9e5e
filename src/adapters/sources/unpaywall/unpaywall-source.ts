import type { IdentifierType, PaperIdentifier } from '../../../domain/identifiers.js';
import { normalizeDoi } from '../../../domain/identifiers.js';
import type { Paper } from '../../../domain/paper.js';
import type { PaperSource, SourceCallOptions } from '../../../ports/paper-source.js';
import { paperRecord, pdfUrlOrNull } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type UnpaywallWork, unpaywallWorkSchema } from './unpaywall-api.js';

export interface UnpaywallSourceOptions {
  client: UpstreamClient;
  /** Unpaywall requires a contact address on every request. */
  email: string;
  /** Default https://api.unpaywall.org. */
  baseUrl?: string;
}

/**
 * Unpaywall: the best open-access PDF for a DOI. Its records are thin; the resolver uses them to
 * add `pdf_url` to metadata found elsewhere.
 */
export class UnpaywallSource implements PaperSource {
  readonly name = 'unpaywall';
  readonly lookupTypes: readonly IdentifierType[] = ['DOI'];
  private readonly baseUrl: string;

  constructor(private readonly options: UnpaywallSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://api.unpaywall.org').replace(/\/+$/, '');
  }

  async lookup(identifier: PaperIdentifier, options: SourceCallOptions = {}): Promise<Paper | null> {
    if (identifier.type !== 'DOI') return null;
    const url = new URL(`${this.baseUrl}/v2/${encodeURIComponent(identifier.value).replace(/%2F/gi, '/')}`);
    url.searchParams.set('email', this.options.email);
    const work = await this.options.client.getJson(url.toString(), unpaywallWorkSchema, {
      ...(options.signal ? { signal: options.signal } : {}),
      // Unpaywall answers a DOI it does not know with 404, and a malformed one with 422.
      answerStatuses: [404, 422],
    });
    return work ? toPaper(work) : null;
  }
}

/** The best PDF: the best location's PDF, else the first location that has one. */
export function bestPdfUrl(work: UnpaywallWork): string | null {
  const candidates = [work.best_oa_location, ...(work.oa_locations ?? [])];
  for (const location of candidates) {
    const url = pdfUrlOrNull(location?.url_for_pdf);
    if (url) return url;
  }
  return null;
}

function toPaper(work: UnpaywallWork): Paper | null {
  if (!work.title) return null;
  const doi = normalizeDoi(work.doi);
  return paperRecord({
    source: 'unpaywall',
    title: work.title,
    authors: (work.z_authors ?? []).flatMap((author) => {
      const name = author.raw_author_name ?? [author.given, author.family].filter(Boolean).join(' ');
      return name ? [name] : [];
    }),
    publication_date: work.published_date ?? (work.year ? String(work.year) : null),
    url: doi ? `https://doi.org/${doi}` : null,
    landing_page_url: work.best_oa_location?.url_for_landing_page ?? null,
    doi,
    venue: work.journal_name ?? null,
    type:
      work.genre === 'journal-article'
        ? 'journal-article'
        : work.genre === 'posted-content'
          ? 'preprint'
          : null,
    pdf_url: bestPdfUrl(work),
  });
}
