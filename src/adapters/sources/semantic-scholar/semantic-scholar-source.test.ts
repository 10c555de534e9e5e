import { describe, expect, it } from 'vitest';
import { recorded, recordedFile, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import type { PaperIdentifier } from '../../../domain/identifiers.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { SemanticScholarSource } from './semantic-scholar-source.js';

const responses = 'semantic_scholar/responses/danielnsilva_semanticscholar';
const turingPaper = recordedFile(`${responses}/Paper.json`);

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({
    source: 'semantic_scholar',
    fetch,
    retry: { retries: 0 },
    headers: { 'x-api-key': 's2-key' },
  });
  return { fetch, s2: new SemanticScholarSource({ client }) };
}

describe('SemanticScholarSource (recorded responses)', () => {
  it('looks a paper up by DOI and maps S2 ids, venue, type and the key header', async () => {
    const { fetch, s2 } = source([
      {
        match: /\/graph\/v1\/paper\/DOI:10\.1016\/j\.xgen/,
        respond: recorded('semantic_scholar', 'paper/DOI:10.1016/j.xgen'),
      },
    ]);
    const paper = await s2.lookup({ type: 'DOI', value: '10.1016/j.xgen.2025.100814' });
    expect(paper).toMatchObject({
      title: 'High-throughput screening of human genetic variants by pooled prime editing',
      ss_id: '7e5d4466c8b85f93775fe183e1a318a3e65ac8e4',
      doi: '10.1016/j.xgen.2025.100814',
      cited_by_count: 5,
      venue: 'Cell Genomics',
      type: 'journal-article',
      year: 2024,
      identifiers: { pmid: '40120586', pmcid: 'PMC12008803', corpus_id: '268890006' },
    });
    // the open-access "PDF" of this record is a doi.org landing page: not a PDF
    expect(paper?.pdf_url ?? null).toBeNull();
    expect(fetch.headers[0]?.['x-api-key']).toBe('s2-key');
  });

  it('asks for each identifier type in the form the Graph API expects', async () => {
    const { fetch, s2 } = source([{ match: /\/graph\/v1\/paper\//, respond: turingPaper }]);
    const identifiers: PaperIdentifier[] = [
      { type: 'DOI', value: '10.1093/mind/lix.236.433' },
      { type: 'ARXIV', value: '1706.03762' },
      { type: 'PMID', value: '40120586' },
      { type: 'PMCID', value: 'PMC12008803' },
      { type: 'MAG', value: '2145482038' },
      { type: 'ACL', value: 'P19-1001' },
      { type: 'SS_ID', value: '2d5673caa9e6af3a7b82a43f19ee920992db07ad' },
      { type: 'SS_ID', value: 'CorpusId:14636783' },
    ];
    for (const identifier of identifiers) {
      expect((await s2.lookup(identifier))?.title).toBe('Computing Machinery and Intelligence');
    }
    expect(fetch.calls.map((call) => new URL(call).pathname.replace('/graph/v1/paper/', ''))).toEqual([
      'DOI:10.1093/mind/lix.236.433',
      'ARXIV:1706.03762',
      'PMID:40120586',
      'PMCID:12008803',
      'MAG:2145482038',
      'ACL:P19-1001',
      '2d5673caa9e6af3a7b82a43f19ee920992db07ad',
      'CorpusId:14636783',
    ]);
  });

  it('maps the full recorded paper: abstract, authors, DOI case, MAG', async () => {
    const { s2 } = source([{ match: /\/graph\/v1\/paper\//, respond: turingPaper }]);
    const paper = await s2.lookup({ type: 'SS_ID', value: '2d5673caa9e6af3a7b82a43f19ee920992db07ad' });
    expect(paper).toMatchObject({
      doi: '10.1093/mind/lix.236.433',
      authors: ['A. Turing'],
      cited_by_count: 10059,
      venue: 'Mind',
      publication_date: '1950-10-01',
      identifiers: { mag: '2145482038', corpus_id: '14636783' },
    });
    expect(paper?.abstract).toMatch(/^I propose to consider the question, “Can machines think\?”/);
    expect(paper?.bibliographic).toEqual({ volume: 'LIX', pages: '433–460' });
  });

  it('returns null for the recorded 404 and throws on the recorded 400', async () => {
    const { s2 } = source([
      {
        match: /DOI:10\.1101\/2024\.04\.01\.587366/,
        respond: recorded('semantic_scholar', 'DOI:10.1101/2024.04.01.587366', 404),
      },
      { match: /paper\/0\?/, respond: recorded('semantic_scholar', 'paper/0?', 404) },
      { match: /lix\.236\.433/, respond: recorded('semantic_scholar', 'fields=unknown', 400) },
    ]);
    expect(await s2.lookup({ type: 'DOI', value: '10.1101/2024.04.01.587366' })).toBeNull();
    expect(await s2.lookup({ type: 'SS_ID', value: '0' })).toBeNull();
    await expect(s2.lookup({ type: 'DOI', value: '10.1093/mind/lix.236.433' })).rejects.toMatchObject({
      upstreamStatus: 400,
    });
  });

  it('searches by relevance with year and type filters', async () => {
    const { fetch, s2 } = source([
      {
        match: /\/paper\/search\?/,
        respond: recorded('semantic_scholar', 'search?query=turing&fields=title&offset=0'),
      },
    ]);
    const page = await s2.search({
      text: 'turing',
      sort: 'relevance',
      peerReviewedOnly: true,
      startYear: 2019,
      limit: 10,
    });
    expect(page.total).toBe(70499);
    expect(page.papers).toHaveLength(10);
    expect(page.papers[0]).toMatchObject({
      title:
        'Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, A Large-Scale Generative Language Model',
      ss_id: '7cbc2a7843411a1768ab762930707af0a3c33a19',
    });
    const called = new URL(fetch.calls[0] ?? '');
    expect(called.searchParams.get('year')).toBe('2019-');
    expect(called.searchParams.get('publicationTypes')).toBe('JournalArticle,Conference,Review');
    expect(called.searchParams.get('limit')).toBe('10');
  });

  it('uses bulk search to sort by citations, and reads a full match record', async () => {
    const { fetch, s2 } = source([
      {
        match: /\/paper\/search\/bulk/,
        respond: recorded('semantic_scholar', 'match?query=Attention+is+All'),
      },
    ]);
    const page = await s2.search({
      text: 'attention',
      sort: 'cited_by_count',
      peerReviewedOnly: false,
      limit: 5,
    });
    expect(page.papers[0]).toMatchObject({
      title: 'Attention is All you Need',
      cited_by_count: 136941,
      type: 'conference-paper',
      identifiers: { arxiv: '1706.03762', mag: '2963403868', corpus_id: '13756489' },
    });
    expect(page.papers[0]?.pdf_url ?? null).toBeNull();
    expect(new URL(fetch.calls[0] ?? '').searchParams.get('sort')).toBe('citationCount:desc');
    expect(new URL(fetch.calls[0] ?? '').searchParams.has('limit')).toBe(false);
  });

  it('reads references, citations and recommendations', async () => {
    const citation = recordedFile(`${responses}/Citation.json`);
    const { s2 } = source([
      { match: /\/references\?/, respond: recorded('semantic_scholar', 'references?fields=title&offset=0') },
      { match: /\/citations\?/, respond: { status: 200, body: `{"data":[${citation.body}]}` } },
      {
        match: /\/forpaper\//,
        respond: recorded(
          'semantic_scholar',
          'forpaper/10.2139/ssrn.2250500?fields=title&limit=100&from=recent',
        ),
      },
    ]);
    const id = { type: 'DOI', value: '10.2139/ssrn.2250500' } as const;
    const references = await s2.references(id);
    expect(references[0]?.title).toBe(
      'Group lending or individual lending? Evidence from a randomised field experiment in Mongolia',
    );
    const citations = await s2.citations(id);
    expect(citations[0]).toMatchObject({
      doi: '10.1109/lra.2022.3229266',
      ss_id: 'bdcbc589c8d1e4dd0c6572630f8511557406ad2f',
    });
    const related = await s2.related(id);
    expect(related[0]?.title).toBe(
      'Report shows slight improvement on grantmaker diversity, but compensation lagging behind inflation',
    );
  });
});
