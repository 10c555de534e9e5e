import { describe, expect, it } from 'vitest';
import { recorded, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { CrossrefSource } from './crossref-source.js';

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({ source: 'crossref', fetch, retry: { retries: 0 } });
  return { fetch, crossref: new CrossrefSource({ client, mailto: 'team@example.org' }) };
}

describe('CrossrefSource (recorded responses)', () => {
  it('looks a DOI up, with the JATS abstract as plain text and the polite mailto', async () => {
    const { fetch, crossref } = source([
      {
        match: /\/works\/10\.1063\/1\.4938384/,
        respond: recorded('crossref', 'works/10.1063%2F1.4938384?mailto'),
      },
    ]);
    const paper = await crossref.lookup({ type: 'DOI', value: '10.1063/1.4938384' });
    expect(paper).toMatchObject({
      title:
        'Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study',
      doi: '10.1063/1.4938384',
      publication_date: '2015-12-21',
      year: 2015,
      venue: 'Journal of Applied Physics',
      type: 'journal-article',
      url: 'https://doi.org/10.1063/1.4938384',
      source: 'crossref',
    });
    expect(paper?.authors[0]).toBe('Michael D. Skarlinski');
    // The reference-file fields the record keeps (decision 0049).
    expect(paper?.bibliographic).toMatchObject({
      volume: '118',
      issue: '23',
      pages: '235306',
      publisher: 'AIP Publishing',
      issn: '0021-8979',
    });
    expect(paper?.bibliographic?.author_names?.[0]).toEqual({ family: 'Skarlinski', given: 'Michael D.' });
    expect(paper?.abstract).toMatch(
      /^Metal-oxide layers are likely to be present on metallic nano-structures/,
    );
    expect(paper?.abstract).not.toContain('<jats:');
    expect(new URL(fetch.calls[0] ?? '').searchParams.get('mailto')).toBe('team@example.org');
  });

  it('returns null for the recorded 404 ("Resource not found.")', async () => {
    const { crossref } = source([
      {
        match: /arxiv\.2312\.07559/,
        respond: recorded('crossref', 'works/10.48550%2Farxiv.2312.07559?mailto', 404),
      },
    ]);
    expect(await crossref.lookup({ type: 'DOI', value: '10.48550/arxiv.2312.07559' })).toBeNull();
    expect(await crossref.lookup({ type: 'PMID', value: '123' })).toBeNull();
  });

  it('runs a bibliographic query with date and type filters and citation sort', async () => {
    const { fetch, crossref } = source([
      { match: /\/works\?/, respond: recorded('crossref', 'works?query=ecology&rows=2') },
    ]);
    const page = await crossref.search({
      text: 'ecology',
      sort: 'cited_by_count',
      peerReviewedOnly: true,
      startYear: 2010,
      endYear: 2020,
      limit: 2,
    });
    expect(page.total).toBe(586628);
    expect(page.papers.map((paper) => [paper.title, paper.doi])).toEqual([
      ['Communicating Ecology', '10.1093/obo/9780199830060-0238'],
      ['Chemical Ecology', '10.1093/obo/9780199830060-0023'],
    ]);
    const called = new URL(fetch.calls[0] ?? '');
    expect(called.searchParams.get('query.bibliographic')).toBe('ecology');
    expect(called.searchParams.get('filter')).toBe(
      'from-pub-date:2010,until-pub-date:2020,type:journal-article,type:proceedings-article',
    );
    expect(called.searchParams.get('sort')).toBe('is-referenced-by-count');
    expect(called.searchParams.get('order')).toBe('desc');
  });

  it('surfaces the recorded 400 of an invalid query as a non-retryable upstream error', async () => {
    const { crossref } = source([
      { match: /\/works\?/, respond: recorded('crossref', 'journals?sort=things', 400) },
    ]);
    await expect(
      crossref.search({ text: 'x', sort: 'relevance', peerReviewedOnly: false, limit: 1 }),
    ).rejects.toMatchObject({ upstreamStatus: 400, retryable: false });
  });
});
