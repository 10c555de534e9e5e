import type { Paper } from '../../../domain/paper.js';
import type { SourceCallOptions, SourcePage, SourceQuery } from '../../../ports/paper-source.js';
import type { PatentSource } from '../../../ports/patent-source.js';
import { paperRecord } from '../shared/records.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { type PatentsViewPatent, patentsViewFields, patentsViewSearchSchema } from './patentsview-api.js';

export interface PatentsViewSourceOptions {
  client: UpstreamClient;
  /** Default https://search.patentsview.org. The API key travels in the client's `X-Api-Key` header. */
  baseUrl?: string;
}

/**
 * PatentsView PatentSearch API (US granted patents): full-text match on title and abstract, date
 * range, sort by citations or date. 45 requests/minute per key.
 */
export class PatentsViewSource implements PatentSource {
  readonly name = 'patentsview';
  readonly fusionWeight = 1.0;
  private readonly baseUrl: string;

  constructor(private readonly options: PatentsViewSourceOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://search.patentsview.org').replace(/\/+$/, '');
  }

  async searchPatents(query: SourceQuery, options: SourceCallOptions = {}): Promise<SourcePage> {
    const conditions: unknown[] = [
      { _or: [{ _text_any: { patent_title: query.text } }, { _text_any: { patent_abstract: query.text } }] },
    ];
    if (query.startYear !== undefined) conditions.push({ _gte: { patent_date: `${query.startYear}-01-01` } });
    if (query.endYear !== undefined) conditions.push({ _lte: { patent_date: `${query.endYear}-12-31` } });
    const url = new URL(`${this.baseUrl}/api/v1/patent/`);
    url.searchParams.set('q', JSON.stringify(conditions.length === 1 ? conditions[0] : { _and: conditions }));
    url.searchParams.set('f', JSON.stringify(patentsViewFields));
    const sort =
      query.sort === 'cited_by_count'
        ? [{ patent_num_times_cited_by_us_patents: 'desc' }]
        : query.sort === 'publication_date'
          ? [{ patent_date: 'desc' }]
          : null;
    if (sort) url.searchParams.set('s', JSON.stringify(sort));
    url.searchParams.set('o', JSON.stringify({ size: query.limit }));
    const body = await this.options.client.getJson(url.toString(), patentsViewSearchSchema, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { papers: (body?.patents ?? []).flatMap(toPaper), total: body?.total_hits ?? null };
  }
}

function toPaper(patent: PatentsViewPatent): Paper[] {
  if (!patent.patent_title) return [];
  const number = `US${patent.patent_id}`;
  return [
    paperRecord({
      source: 'patentsview',
      title: patent.patent_title,
      authors: (patent.inventors ?? []).flatMap((inventor) => {
        const name = [inventor.inventor_name_first, inventor.inventor_name_last].filter(Boolean).join(' ');
        return name ? [name] : [];
      }),
      assignees: (patent.assignees ?? []).flatMap((assignee) =>
        assignee.assignee_organization ? [assignee.assignee_organization] : [],
      ),
      abstract: patent.patent_abstract ?? null,
      publication_date: patent.patent_date ?? null,
      cited_by_count: patent.patent_num_times_cited_by_us_patents ?? null,
      url: `https://patents.google.com/patent/${number}`,
      type: 'patent',
      venue: 'USPTO',
      patent_number: number,
      identifiers: { patent_number: number },
    }),
  ];
}
