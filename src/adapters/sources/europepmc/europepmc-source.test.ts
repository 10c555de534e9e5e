import { describe, expect, it } from 'vitest';
import { recordedFile, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { EuropePmcSource } from './europepmc-source.js';

const responses = 'europepmc/responses/pyEuropePMC';

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({ source: 'europepmc', fetch, retry: { retries: 0 } });
  return { fetch, europepmc: new EuropePmcSource({ client }) };
}

describe('EuropePmcSource (recorded responses)', () => {
  it('parses a core search page: ids, types, open-access PDF links, abstracts', async () => {
    const { fetch, europepmc } = source([
      { match: /\/search\?/, respond: recordedFile(`${responses}/search_cancer_core.json`) },
    ]);
    const page = await europepmc.search({
      text: 'cancer',
      sort: 'cited_by_count',
      peerReviewedOnly: true,
      startYear: 2024,
      endYear: 2025,
      limit: 25,
    });
    expect(page.total).toBe(5059039);
    expect(page.papers).toHaveLength(25);
    expect(page.papers[0]).toMatchObject({
      title:
        'Abscopal response in a patient with fibrolamellar hepatocellular carcinoma following radiotherapy.',
      doi: '10.1016/s0140-6736(24)02600-x',
      identifiers: { pmid: '39709209' },
      type: 'journal-article',
      venue: 'Lancet (London, England)',
    });
    const open = page.papers.find((paper) => paper.identifiers?.pmcid === 'PMC12120539');
    expect(open).toMatchObject({
      pdf_url: 'https://europepmc.org/articles/PMC12120539?pdf=render',
      pdf_id: 'PDF_URL:https://europepmc.org/articles/PMC12120539?pdf=render',
      type: 'journal-article',
    });
    expect(open?.abstract?.length).toBeGreaterThan(200);
    expect(page.papers.find((paper) => paper.identifiers?.pmid === '39709208')?.type).toBe('other');
    const called = new URL(fetch.calls[0] ?? '');
    expect(called.searchParams.get('query')).toBe('(cancer) AND PUB_YEAR:[2024 TO 2025] AND NOT SRC:PPR');
    expect(called.searchParams.get('sort')).toBe('CITED desc');
    expect(called.searchParams.get('resultType')).toBe('core');
  });

  it('reads lite results (author string) and an empty result list', async () => {
    const { europepmc } = source([
      { match: /query=\(cancer\)/, respond: recordedFile(`${responses}/search_cancer.json`) },
      { match: /query=\(nothing\)/, respond: recordedFile(`${responses}/search_no_results.json`) },
    ]);
    const page = await europepmc.search({
      text: 'cancer',
      sort: 'relevance',
      peerReviewedOnly: false,
      limit: 25,
    });
    expect(page.papers[0]?.authors).toEqual(['Schoenfeld JD', 'Haas-Kogan DA', "O'Neill AF"]);
    // The reference-file fields the record keeps (decision 0049).
    expect(page.papers[0]?.bibliographic).toEqual({
      volume: '404',
      issue: '10471',
      pages: '2603–2604',
      issn: '0140-6736',
    });
    const none = await europepmc.search({
      text: 'nothing',
      sort: 'relevance',
      peerReviewedOnly: false,
      limit: 25,
    });
    expect(none).toEqual({ papers: [], total: 0 });
  });

  it('looks up PMID, PMCID and DOI with the right query syntax', async () => {
    const { fetch, europepmc } = source([
      { match: /\/search\?/, respond: recordedFile(`${responses}/search_cancer_core.json`) },
    ]);
    await europepmc.lookup({ type: 'PMID', value: '39709209' });
    await europepmc.lookup({ type: 'PMCID', value: 'PMC12120539' });
    const paper = await europepmc.lookup({ type: 'DOI', value: '10.1016/s0140-6736(24)02600-x' });
    expect(paper?.identifiers?.pmid).toBe('39709209');
    expect(fetch.calls.map((call) => new URL(call).searchParams.get('query'))).toEqual([
      'EXT_ID:39709209 AND SRC:MED',
      'PMCID:PMC12120539',
      'DOI:"10.1016/s0140-6736(24)02600-x"',
    ]);
    expect(await europepmc.lookup({ type: 'MAG', value: '1' })).toBeNull();
  });

  it('serves open-access full text as markdown from real PMC JATS, keyed by PMCID', async () => {
    const jats = recordedFile('pubmed_eutils/responses/biopython/efetch_pmc.xml', 200, 'application/xml');
    const { fetch, europepmc } = source([
      { match: /\/PMC8435807\/fullTextXML$/, respond: jats },
      { match: /\/PMC1\/fullTextXML$/, respond: { status: 404, body: '' } },
    ]);
    expect(europepmc.keyFor({ identifiers: { pmcid: '8435807' } })).toBe('PMC8435807');
    expect(
      europepmc.keyFor({ url: 'https://europepmc.org/articles/PMC8435807?pdf=render', identifiers: {} }),
    ).toBe('PMC8435807');
    expect(europepmc.keyFor({ identifiers: { doi: '10.1/x' } })).toBeNull();
    const text = await europepmc.fetch({ identifiers: { pmcid: 'PMC8435807' } });
    expect(text?.title).toMatch(
      /^“Lung diffusing capacity for nitric oxide measured by two commercial devices/,
    );
    expect(text?.markdown).toMatch(/^# “Lung diffusing capacity/);
    expect(text?.markdown).toContain(
      '\n\nThis article was originally published with an error in table 2. The upper 95% confidence limit',
    );
    expect(fetch.calls[0]).toBe('https://www.ebi.ac.uk/europepmc/webservices/rest/PMC8435807/fullTextXML');
    expect(await europepmc.fetch({ identifiers: { pmcid: 'PMC1' } })).toBeNull();
  });
});
