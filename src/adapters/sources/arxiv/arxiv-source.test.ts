import { describe, expect, it } from 'vitest';
import { recordedArxiv, recordedFile, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { ArxivSource } from './arxiv-source.js';

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({ source: 'arxiv', fetch, retry: { retries: 0 } });
  return { fetch, arxiv: new ArxivSource({ client }) };
}

describe('ArxivSource (recorded Atom feeds)', () => {
  it('looks up a new-style id and keeps the PDF link', async () => {
    const { fetch, arxiv } = source([
      { match: /id_list=1605\.08386/, respond: recordedArxiv('id_1605.08386_s0_m100_199195aa31ad.json') },
    ]);
    const paper = await arxiv.lookup({ type: 'ARXIV', value: '1605.08386' });
    expect(paper).toMatchObject({
      title: 'Heat-bath random walks with Markov bases',
      authors: ['Caprice Stanley', 'Tobias Windisch'],
      publication_date: '2016-05-26',
      year: 2016,
      type: 'preprint',
      venue: 'arXiv',
      url: 'https://arxiv.org/abs/1605.08386',
      pdf_url: 'https://arxiv.org/pdf/1605.08386v1',
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/1605.08386v1',
      identifiers: { arxiv: '1605.08386' },
    });
    expect(paper?.abstract).toMatch(/^Graphs on lattice points are studied/);
    // The arXiv class, for BibTeX `primaryclass` (decision 0049).
    expect(paper?.bibliographic).toEqual({ arxiv_class: 'math.CO' });
    expect(new URL(fetch.calls[0] ?? '').searchParams.get('id_list')).toBe('1605.08386');
  });

  it('looks up an old-style id', async () => {
    const { arxiv } = source([
      {
        match: /id_list=astro-ph\/0601001/,
        respond: recordedArxiv('id_astro-ph_0601001_s0_m100_3150dca9dc76.json'),
      },
    ]);
    const paper = await arxiv.lookup({ type: 'ARXIV', value: 'astro-ph/0601001' });
    expect(paper?.title).toMatch(/^Frequency of Hot Jupiters and Very Hot Jupiters/);
    expect(paper?.identifiers?.arxiv).toBe('astro-ph/0601001');
  });

  it('reads the journal DOI of a published preprint from the 2016 feed format', async () => {
    const { arxiv } = source([
      {
        match: /id_list=1111\.2011/,
        respond: recordedFile('arxiv/responses/arxiv.py_2016/id_list=1111.2011v2.xml'),
      },
    ]);
    const paper = await arxiv.lookup({ type: 'DOI', value: '10.48550/arxiv.1111.2011' });
    expect(paper).toMatchObject({
      title: 'Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit',
      doi: '10.1103/physrevb.85.115117',
      venue: 'Phys. Rev. B 85, 115117 (2012)',
      type: 'journal-article',
      authors: ['James M. Murray', 'Adrian Del Maestro', 'Zlatko Tesanovic'],
      pdf_url: 'https://arxiv.org/pdf/1111.2011v2',
    });
  });

  it('answers null for an unknown id and for the recorded 400 error feed', async () => {
    const { arxiv } = source([
      { match: /id_list=0000\.0000/, respond: recordedArxiv('id_0000.0000_s0_m100_8b51d9633a68.json') },
      { match: /id_list=abc/, respond: recordedArxiv('id_abc_s0_m100_b79c8dcf6bc3.json') },
    ]);
    expect(await arxiv.lookup({ type: 'ARXIV', value: '0000.0000' })).toBeNull();
    expect(await arxiv.lookup({ type: 'ARXIV', value: 'abc' })).toBeNull();
    expect(await arxiv.lookup({ type: 'DOI', value: '10.1000/not-arxiv' })).toBeNull();
  });

  it('searches with AND-ed terms and a submitted-date range', async () => {
    const { fetch, arxiv } = source([
      { match: /search_query=/, respond: recordedArxiv('q_testing_s0_m10_bc5a6c384fe9.json') },
    ]);
    const page = await arxiv.search({
      text: 'deep learning testing',
      sort: 'relevance',
      peerReviewedOnly: false,
      startYear: 2020,
      endYear: 2022,
      limit: 10,
    });
    expect(page.total).toBe(214881);
    expect(page.papers).toHaveLength(10);
    expect(page.papers[0]?.title).toBe(
      'Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques',
    );
    expect(new URL(fetch.calls[0] ?? '').searchParams.get('search_query')).toBe(
      'all:deep AND all:learning AND all:testing AND submittedDate:[202001010000 TO 202212312359]',
    );
  });
});
