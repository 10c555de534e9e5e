import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArxivSource } from '../../src/adapters/sources/arxiv/arxiv-source.js';
import { CrossrefSource } from '../../src/adapters/sources/crossref/crossref-source.js';
import { EuropePmcSource } from '../../src/adapters/sources/europepmc/europepmc-source.js';
import { OpenAlexSource } from '../../src/adapters/sources/openalex/openalex-source.js';
import { PatentsViewSource } from '../../src/adapters/sources/patentsview/patentsview-source.js';
import { PubmedSource } from '../../src/adapters/sources/pubmed/pubmed-source.js';
import { SemanticScholarSource } from '../../src/adapters/sources/semantic-scholar/semantic-scholar-source.js';
import { UpstreamClient } from '../../src/adapters/sources/shared/upstream-client.js';
import { UnpaywallSource } from '../../src/adapters/sources/unpaywall/unpaywall-source.js';
import type { SourceQuery } from '../../src/ports/paper-source.js';
import { type Route, recorded, recordedArxiv, recordedFile, replayFetch } from '../fakes/recorded-fetch.js';
import { runPaperSourceContract, runPatentSourceContract } from './paper-source.contract.js';

// Every adapter of PaperSource / PatentSource against its recorded real responses (404 otherwise).
const notFound: Route = { match: /./, respond: { status: 404, body: '{}' } };
const query = (text: string, limit = 5): SourceQuery => ({
  text,
  sort: 'relevance',
  peerReviewedOnly: false,
  limit,
});
function client(source: string, routes: Route[]) {
  const fetch = replayFetch([...routes, notFound]);
  return { fetch, client: new UpstreamClient({ source, fetch, retry: { retries: 0 } }) };
}

runPaperSourceContract('OpenAlex', () => {
  const { fetch, client: upstream } = client('openalex', [
    { match: /\/works\/doi:10\.1073\/pnas/, respond: recorded('openalex', 'pnas.1414271111') },
    { match: /\/works\/doi:10\.1046/, respond: recorded('openalex', 'j.1365-2699', 404) },
    { match: /\/works\?/, respond: recorded('openalex', 'title.search%3AAugmenting+large') },
  ]);
  return {
    source: new OpenAlexSource({ client: upstream }),
    fetch,
    known: { type: 'DOI', value: '10.1073/pnas.1414271111' },
    unknown: { type: 'DOI', value: '10.1046/j.1365-2699.2003.00795' },
    query: query('chemistry tools'),
  };
});

runPaperSourceContract('Semantic Scholar', () => {
  const { fetch, client: upstream } = client('semantic_scholar', [
    {
      match: /paper\/DOI:10\.1016\/j\.xgen/,
      respond: recorded('semantic_scholar', 'paper/DOI:10.1016/j.xgen'),
    },
    {
      match: /DOI:10\.1101\/2024\.04\.01\.587366/,
      respond: recorded('semantic_scholar', 'DOI:10.1101/2024.04.01.587366', 404),
    },
    {
      match: /\/paper\/search\?/,
      respond: recorded('semantic_scholar', 'search?query=turing&fields=title&offset=0'),
    },
  ]);
  return {
    source: new SemanticScholarSource({ client: upstream }),
    fetch,
    known: { type: 'DOI', value: '10.1016/j.xgen.2025.100814' },
    unknown: { type: 'DOI', value: '10.1101/2024.04.01.587366' },
    query: query('turing', 10),
  };
});

runPaperSourceContract('arXiv', () => {
  const { fetch, client: upstream } = client('arxiv', [
    { match: /id_list=1605\.08386/, respond: recordedArxiv('id_1605.08386_s0_m100_199195aa31ad.json') },
    { match: /id_list=0000\.0000/, respond: recordedArxiv('id_0000.0000_s0_m100_8b51d9633a68.json') },
    { match: /search_query=/, respond: recordedArxiv('q_testing_s0_m10_bc5a6c384fe9.json') },
  ]);
  return {
    source: new ArxivSource({ client: upstream }),
    fetch,
    known: { type: 'ARXIV', value: '1605.08386' },
    unknown: { type: 'ARXIV', value: '0000.0000' },
    query: query('testing', 10),
  };
});

runPaperSourceContract('Crossref', () => {
  const { fetch, client: upstream } = client('crossref', [
    { match: /\/works\/10\.1063/, respond: recorded('crossref', 'works/10.1063%2F1.4938384?mailto') },
    {
      match: /\/works\/10\.48550/,
      respond: recorded('crossref', 'works/10.48550%2Farxiv.2312.07559?mailto', 404),
    },
    { match: /\/works\?/, respond: recorded('crossref', 'works?query=ecology&rows=2') },
  ]);
  return {
    source: new CrossrefSource({ client: upstream }),
    fetch,
    known: { type: 'DOI', value: '10.1063/1.4938384' },
    unknown: { type: 'DOI', value: '10.48550/arxiv.2312.07559' },
    query: query('ecology', 2),
  };
});

runPaperSourceContract('Europe PMC', () => {
  const { fetch, client: upstream } = client('europepmc', [
    {
      match: /query=EXT_ID:39709209/,
      respond: recordedFile('europepmc/responses/pyEuropePMC/search_cancer_core.json'),
    },
    {
      match: /query=EXT_ID:1\+AND/,
      respond: recordedFile('europepmc/responses/pyEuropePMC/search_no_results.json'),
    },
    {
      match: /query=\(cancer\)/,
      respond: recordedFile('europepmc/responses/pyEuropePMC/search_cancer.json'),
    },
  ]);
  return {
    source: new EuropePmcSource({ client: upstream }),
    fetch,
    known: { type: 'PMID', value: '39709209' },
    unknown: { type: 'PMID', value: '1' },
    query: query('cancer', 25),
  };
});

runPaperSourceContract('PubMed', () => {
  const { fetch, client: upstream } = client('pubmed', [
    { match: /id=27797938/, respond: recordedFile('pubmed_eutils/responses/biopython/pubmed4.xml') },
    { match: /id=1&/, respond: recordedFile('pubmed_eutils/responses/biopython/pubmed1.xml') },
  ]);
  return {
    source: new PubmedSource({ client: upstream }),
    fetch,
    known: { type: 'PMID', value: '27797938' },
    unknown: { type: 'PMID', value: '1' },
  };
});

runPaperSourceContract('Unpaywall', () => {
  const { fetch, client: upstream } = client('unpaywall', [
    { match: /\/v2\/10\.1073\/pnas/, respond: recorded('unpaywall', 'pnas.1414271111') },
  ]);
  return {
    source: new UnpaywallSource({ client: upstream, email: 'team@example.org' }),
    fetch,
    known: { type: 'DOI', value: '10.1073/pnas.1414271111' },
    unknown: { type: 'DOI', value: '10.9999/unknown' },
  };
});

runPatentSourceContract('PatentsView (fixture written from the published docs)', () => {
  const body = readFileSync(
    join(import.meta.dirname, '../../src/adapters/sources/patentsview/__fixtures__/patent-search.json'),
    'utf8',
  );
  const { client: upstream } = client('patentsview', [
    { match: /\/api\/v1\/patent\//, respond: { status: 200, body } },
  ]);
  return { source: new PatentsViewSource({ client: upstream }), query: query('display presentation', 10) };
});
