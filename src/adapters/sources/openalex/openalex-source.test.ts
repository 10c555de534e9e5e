import { describe, expect, it } from 'vitest';
import { type CannedResponse, recorded, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { OpenAlexSource } from './openalex-source.js';

const chemistryList = recorded('openalex', 'title.search%3AAugmenting+large');
const paperQaList = recorded('openalex', 'title.search%3APaperQA');

/** The first work of a recorded list, served as a single-work answer. */
function firstWork(list: CannedResponse): CannedResponse {
  return { ...list, body: JSON.stringify((JSON.parse(list.body) as { results: unknown[] }).results[0]) };
}

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({
    source: 'openalex',
    fetch,
    retry: { retries: 0 },
    headers: { authorization: 'Bearer oa-key' },
  });
  return { fetch, openalex: new OpenAlexSource({ client, mailto: 'team@example.org' }) };
}

describe('OpenAlexSource (recorded responses)', () => {
  it('looks a work up by DOI and maps authors, ids, venue, type and citations', async () => {
    const { fetch, openalex } = source([
      {
        match: /\/works\/doi:10\.1016\/j\.xgen\.2025\.100814/,
        respond: recorded('openalex', 'j.xgen.2025.100814'),
      },
    ]);
    const paper = await openalex.lookup({ type: 'DOI', value: '10.1016/j.xgen.2025.100814' });
    expect(paper).toMatchObject({
      title: 'High-throughput screening of human genetic variants by pooled prime editing',
      doi: '10.1016/j.xgen.2025.100814',
      year: 2025,
      publication_date: '2025-03-01',
      cited_by_count: 3,
      venue: 'Cell Genomics',
      type: 'journal-article',
      url: 'https://doi.org/10.1016/j.xgen.2025.100814',
      source: 'openalex',
      identifiers: { openalex: 'W4408732759', pmid: '40120586' },
    });
    expect(paper?.authors[0]).toBe('Michael Herger');
    // The reference-file fields the record keeps (decision 0049): an article number as its pages.
    expect(paper?.bibliographic).toEqual({ pages: '100814', issn: '2666-979X', publisher: 'Elsevier BV' });
    expect(paper?.pdf_url ?? null).toBeNull();
    const called = new URL(fetch.calls[0] ?? '');
    expect(called.searchParams.get('mailto')).toBe('team@example.org');
    // The key travels in the Authorization header, never in the URL (decision 0042).
    expect(called.searchParams.has('api_key')).toBe(false);
    expect(fetch.headers[0]?.authorization).toBe('Bearer oa-key');
  });

  it('rebuilds the abstract from the inverted index and reads PMCID and MAG ids', async () => {
    const { openalex } = source([
      { match: /pnas\.1414271111/, respond: recorded('openalex', 'pnas.1414271111') },
    ]);
    const paper = await openalex.lookup({ type: 'DOI', value: '10.1073/pnas.1414271111' });
    expect(paper?.abstract).toMatch(
      /^Significance The inadequate mechanical properties of engineered tissues/,
    );
    expect(paper?.identifiers).toMatchObject({ pmcid: 'PMC4234579', mag: '2109415576', pmid: '25349395' });
  });

  it('returns null for the recorded 404 (an HTML page)', async () => {
    const { openalex } = source([
      { match: /j\.1365-2699/, respond: recorded('openalex', 'j.1365-2699', 404) },
    ]);
    expect(await openalex.lookup({ type: 'DOI', value: '10.1046/j.1365-2699.2003.00795' })).toBeNull();
  });

  it('searches with filters and sort, and takes the open-access PDF location', async () => {
    const { fetch, openalex } = source([{ match: /\/works\?/, respond: chemistryList }]);
    const page = await openalex.search({
      text: 'large language models chemistry tools',
      sort: 'cited_by_count',
      peerReviewedOnly: true,
      startYear: 2023,
      endYear: 2024,
      limit: 10,
    });
    expect(page.total).toBe(2);
    expect(page.papers.map((paper) => paper.title)).toEqual([
      'Augmenting large language models with chemistry tools',
      'ChemCrow: Augmenting large-language models with chemistry tools',
    ]);
    expect(page.papers[0]).toMatchObject({
      pdf_url: 'https://www.nature.com/articles/s42256-024-00832-8.pdf',
      pdf_id: 'PDF_URL:https://www.nature.com/articles/s42256-024-00832-8.pdf',
      cited_by_count: 236,
      type: 'journal-article',
    });
    expect(page.papers[1]?.type).toBe('preprint');
    const called = new URL(fetch.calls[0] ?? '');
    expect(called.searchParams.get('search')).toBe('large language models chemistry tools');
    expect(called.searchParams.get('filter')).toBe(
      'from_publication_date:2023-01-01,to_publication_date:2024-12-31,type:article|review',
    );
    expect(called.searchParams.get('sort')).toBe('cited_by_count:desc');
    expect(called.searchParams.get('per-page')).toBe('10');
  });

  it('resolves an arXiv id through its DataCite DOI', async () => {
    const { fetch, openalex } = source([
      { match: /\/works\/doi:10\.48550\/arxiv\.2312\.07559/, respond: firstWork(paperQaList) },
    ]);
    const paper = await openalex.lookup({ type: 'ARXIV', value: '2312.07559' });
    expect(paper).toMatchObject({
      title: 'PaperQA: Retrieval-Augmented Generative Agent for Scientific Research',
      type: 'preprint',
      identifiers: { arxiv: '2312.07559', openalex: 'W4389761608' },
    });
    expect(fetch.calls).toHaveLength(1);
  });

  it('lists citations through the cites: filter of the resolved work', async () => {
    const { fetch, openalex } = source([
      { match: /\/works\/pmid:38799228/, respond: firstWork(chemistryList) },
      { match: /filter=cites:W4396723768/, respond: paperQaList },
    ]);
    const citing = await openalex.citations({ type: 'PMID', value: '38799228' }, { limit: 5 });
    expect(citing.map((paper) => paper.title)).toEqual([
      'PaperQA: Retrieval-Augmented Generative Agent for Scientific Research',
    ]);
    expect(new URL(fetch.calls[1] ?? '').searchParams.get('per-page')).toBe('5');
  });
});
