import { describe, expect, it } from 'vitest';
import { FakeLocalSearch, testPaper } from '../../../test/fakes/fake-paper-sources.js';
import { recorded, recordedArxiv, recordedFile, replayFetch } from '../../../test/fakes/recorded-fetch.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { ArxivSource } from '../../adapters/sources/arxiv/arxiv-source.js';
import { CrossrefSource } from '../../adapters/sources/crossref/crossref-source.js';
import { EuropePmcSource } from '../../adapters/sources/europepmc/europepmc-source.js';
import { OpenAlexSource } from '../../adapters/sources/openalex/openalex-source.js';
import { PubmedSource } from '../../adapters/sources/pubmed/pubmed-source.js';
import { SemanticScholarSource } from '../../adapters/sources/semantic-scholar/semantic-scholar-source.js';
import { UpstreamClient } from '../../adapters/sources/shared/upstream-client.js';
import { UnpaywallSource } from '../../adapters/sources/unpaywall/unpaywall-source.js';
import { parsePaperIdentifier } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import { PaperResolver } from './paper-resolver.js';

const notFound = { match: /./, respond: { status: 404, body: '' } };

function client(source: string, routes: Parameters<typeof replayFetch>[0]) {
  const fetch = replayFetch([...routes, notFound]);
  return { fetch, client: new UpstreamClient({ source, fetch, retry: { retries: 0 } }) };
}

/** Every source, each answering from its recordings (404 for anything not recorded). */
function recordedSources() {
  const openalex = client('openalex', [
    { match: /pnas\.1414271111/, respond: recorded('openalex', 'pnas.1414271111') },
  ]);
  const s2 = client('semantic_scholar', [
    { match: /DOI:10\.1073\/pnas/, respond: recorded('semantic_scholar', 'DOI:10.1073/pnas.1414271111') },
    {
      match: /\/paper\/(MAG:2145482038|ACL:|2d5673caa9e6af3a7b82a43f19ee920992db07ad)/,
      respond: recordedFile('semantic_scholar/responses/danielnsilva_semanticscholar/Paper.json'),
    },
  ]);
  const crossref = client('crossref', [
    {
      match: /works\/10\.1073\/pnas\.1414271111/,
      respond: recorded('crossref', 'works/10.1073%2Fpnas.1414271111?mailto'),
    },
  ]);
  const unpaywall = client('unpaywall', [
    { match: /pnas\.1414271111/, respond: recorded('unpaywall', 'pnas.1414271111') },
  ]);
  const arxiv = client('arxiv', [
    { match: /id_list=1605\.08386/, respond: recordedArxiv('id_1605.08386_s0_m100_199195aa31ad.json') },
  ]);
  const europepmc = client('europepmc', [
    {
      match: /PMCID:PMC12120539/,
      respond: recordedFile('europepmc/responses/pyEuropePMC/search_cancer_core.json'),
    },
  ]);
  const pubmed = client('pubmed', [
    { match: /id=27797938/, respond: recordedFile('pubmed_eutils/responses/biopython/pubmed4.xml') },
  ]);
  return {
    fetches: { openalex: openalex.fetch, s2: s2.fetch, unpaywall: unpaywall.fetch },
    sources: [
      new OpenAlexSource({ client: openalex.client }),
      new SemanticScholarSource({ client: s2.client }),
      new CrossrefSource({ client: crossref.client }),
      new ArxivSource({ client: arxiv.client }),
      new EuropePmcSource({ client: europepmc.client }),
      new PubmedSource({ client: pubmed.client }),
    ],
    unpaywall: new UnpaywallSource({ client: unpaywall.client, email: 'team@example.org' }),
  };
}

describe('PaperResolver', () => {
  it('resolves all seven identifier types through the sources', async () => {
    const { sources, unpaywall } = recordedSources();
    const resolver = new PaperResolver({ sources, openAccess: unpaywall, cache: new MemoryCache() });
    const resolve = async (text: string) => resolver.findByIdentifier(parsePaperIdentifier(text));

    const doi = await resolve('DOI:10.1073/pnas.1414271111');
    expect(doi).toMatchObject({
      title:
        'Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen cross-linking',
      ss_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      identifiers: { pmid: '25349395', pmcid: 'PMC4234579', mag: '2109415576', openalex: 'W2109415576' },
      pdf_url: 'https://www.pnas.org/content/pnas/111/45/E4832.full.pdf',
      pdf_id: 'PDF_URL:https://www.pnas.org/content/pnas/111/45/E4832.full.pdf',
    });
    expect(doi?.cited_by_count).toBe(138);

    const pmid = await resolve('PMID:27797938');
    expect(pmid).toMatchObject({ doi: '10.1136/gutjnl-2016-312510', identifiers: { pmcid: 'PMC5442267' } });
    expect(pmid?.pdf_url ?? null).toBeNull();

    const arxiv = await resolve('ARXIV:1605.08386');
    expect(arxiv).toMatchObject({
      title: 'Heat-bath random walks with Markov bases',
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/1605.08386v1',
    });

    const pmcid = await resolve('PMCID:PMC12120539');
    expect(pmcid?.pdf_url).toBe('https://europepmc.org/articles/PMC12120539?pdf=render');

    for (const text of ['SS_ID:2d5673caa9e6af3a7b82a43f19ee920992db07ad', 'MAG:2145482038', 'ACL:P19-1001']) {
      expect((await resolve(text))?.title).toBe('Computing Machinery and Intelligence');
    }
    expect(await resolve('DOI:10.9999/nobody-knows-this')).toBeNull();
  });

  it('finds the open PDF through Unpaywall when no metadata source has one', async () => {
    const { sources, unpaywall, fetches } = recordedSources();
    const withoutS2 = sources.filter((source) => source.name !== 'semantic_scholar');
    const resolution = await new PaperResolver({
      sources: withoutS2,
      openAccess: unpaywall,
      cache: new MemoryCache(),
    }).resolve(parsePaperIdentifier('DOI:10.1073/pnas.1414271111'));
    expect(resolution.paper?.pdf_url).toBe('https://www.pnas.org/content/pnas/111/45/E4832.full.pdf');
    expect(fetches.unpaywall.calls).toHaveLength(1);
    expect(resolution.sources.map((report) => `${report.source}=${report.status}:${report.count}`)).toEqual([
      'openalex=ok:1',
      'crossref=ok:1',
      'europepmc=ok:0',
      'unpaywall=ok:1',
    ]);
  });

  it('answers from the local index first, caches what sources found, and keeps it in the index', async () => {
    const { sources, fetches } = recordedSources();
    const inIndex = testPaper('Local copy', { doi: '10.1000/local', pdf_id: 'PROJ:papers/local.pdf' });
    const local = new FakeLocalSearch([], { known: [inIndex] });
    const remembered: Paper[] = [];
    const resolver = new PaperResolver({
      local,
      sources,
      cache: new MemoryCache(),
      remember: async (paper) => {
        remembered.push(paper);
      },
    });
    expect(await resolver.findByIdentifier({ type: 'DOI', value: '10.1000/local' })).toBe(inIndex);
    expect(fetches.openalex.calls).toHaveLength(0);

    const first = await resolver.findByIdentifier({ type: 'DOI', value: '10.1073/pnas.1414271111' });
    const second = await resolver.findByIdentifier({ type: 'DOI', value: '10.1073/pnas.1414271111' });
    expect(second).toEqual(first);
    expect(fetches.openalex.calls).toHaveLength(1);
    expect(fetches.s2.calls).toHaveLength(1);
    expect(remembered.map((paper) => paper.doi)).toEqual(['10.1073/pnas.1414271111']);
  });

  it('reports a failing source and still resolves from the others', async () => {
    const { sources } = recordedSources();
    const broken = new OpenAlexSource({
      client: new UpstreamClient({
        source: 'openalex',
        retry: { retries: 0 },
        fetch: async () => new Response('oops', { status: 503 }),
      }),
    });
    const resolver = new PaperResolver({
      sources: [broken, ...sources.filter((source) => source.name !== 'openalex')],
      cache: new MemoryCache(),
    });
    const resolution = await resolver.resolve({ type: 'DOI', value: '10.1073/pnas.1414271111' });
    expect(resolution.paper?.ss_id).toMatch(/^[0-9a-f]{40}$/);
    expect(resolution.sources.find((report) => report.source === 'openalex')).toMatchObject({
      status: 'failed',
      message: 'openalex answered HTTP 503',
    });
  });
});
