import { describe, expect, it } from 'vitest';
import { recordedFile, replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamClient } from '../shared/upstream-client.js';
import { PubmedSource } from './pubmed-source.js';

const responses = 'pubmed_eutils/responses/biopython';

function source(routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch(routes);
  const client = new UpstreamClient({ source: 'pubmed', fetch, retry: { retries: 0 } });
  return { fetch, pubmed: new PubmedSource({ client, email: 'team@example.org', apiKey: 'ncbi-key' }) };
}

describe('PubmedSource (recorded efetch XML)', () => {
  it('reads a PMID record: structured abstract, authors, DOI, PMCID and date', async () => {
    const { fetch, pubmed } = source([
      { match: /id=27797938/, respond: recordedFile(`${responses}/pubmed4.xml`) },
    ]);
    const paper = await pubmed.lookup({ type: 'PMID', value: '27797938' });
    expect(paper).toMatchObject({
      doi: '10.1136/gutjnl-2016-312510',
      identifiers: { pmid: '27797938', pmcid: 'PMC5442267' },
      publication_date: '2017-06',
      year: 2017,
      type: 'journal-article',
      url: 'https://pubmed.ncbi.nlm.nih.gov/27797938/',
      source: 'pubmed',
    });
    expect(paper?.title).toMatch(
      /^Leucocyte telomere length, genetic variants at the TERT gene region and risk of/,
    );
    expect(paper?.abstract).toMatch(/^OBJECTIVE: /);
    expect(paper?.authors.length).toBeGreaterThan(3);
    const called = new URL(fetch.calls[0] ?? '');
    expect(Object.fromEntries(called.searchParams)).toMatchObject({
      db: 'pubmed',
      retmode: 'xml',
      tool: 'alexandria',
      email: 'team@example.org',
      api_key: 'ncbi-key',
    });
  });

  it('keeps the article PMID, not one from the reference list', async () => {
    const { pubmed } = source([{ match: /id=29963580/, respond: recordedFile(`${responses}/pubmed7.xml`) }]);
    const paper = await pubmed.lookup({ type: 'PMID', value: '29963580' });
    expect(paper).toMatchObject({
      identifiers: { pmid: '29963580', pmcid: 'PMC6022861' },
      doi: '10.1117/1.jmi.5.2.026002',
      publication_date: '2018-04',
    });
  });

  it('picks the requested record from a two-record answer and spells month names as numbers', async () => {
    const { pubmed } = source([{ match: /efetch/, respond: recordedFile(`${responses}/pubmed1.xml`) }]);
    const paper = await pubmed.lookup({ type: 'PMID', value: '9997' });
    expect(paper).toMatchObject({
      doi: '10.1016/0005-2795(76)90109-4',
      publication_date: '1976-09-28',
    });
    // Volume, issue, ISSN and MEDLINE's abbreviated page range written out (decision 0049).
    expect(paper?.bibliographic).toEqual({ volume: '446', issue: '1', pages: '179–191', issn: '0006-3002' });
    expect(paper?.title).toMatch(/^Magnetic studies of Chromatium flavocytochrome C552/);
    expect(await pubmed.lookup({ type: 'PMID', value: '123' })).toBeNull();
    expect(await pubmed.lookup({ type: 'DOI', value: '10.1/x' })).toBeNull();
  });
});
