import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeLocalSearch, ScriptedSource, testPaper } from '../../../test/fakes/fake-paper-sources.js';
import { recorded, replayFetch } from '../../../test/fakes/recorded-fetch.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { CrossrefSource } from '../../adapters/sources/crossref/crossref-source.js';
import { OpenAlexSource } from '../../adapters/sources/openalex/openalex-source.js';
import { SemanticScholarSource } from '../../adapters/sources/semantic-scholar/semantic-scholar-source.js';
import { UpstreamClient } from '../../adapters/sources/shared/upstream-client.js';
import { createSqlitePaperIndex } from '../../adapters/sqlite/sqlite-paper-index.js';
import { invalid } from '../../domain/errors.js';
import type { SearchRequest } from '../../domain/search.js';
import { SearchService } from '../search-service.js';
import type { PaperSearch } from '../services.js';
import { FederatedSearch } from './federated-search.js';
import { SourceMonitor, sourcesHeader } from './source-monitor.js';

function request(fields: Partial<SearchRequest> = {}): SearchRequest {
  return {
    keywords: 'native oxide copper',
    sort: 'relevance',
    peerReviewedOnly: false,
    offset: 0,
    limit: 10,
    ...fields,
  };
}

function client(source: string, routes: Parameters<typeof replayFetch>[0], options = {}) {
  return new UpstreamClient({ source, fetch: replayFetch(routes), retry: { retries: 0 }, ...options });
}

describe('FederatedSearch', () => {
  it('merges the same paper from OpenAlex, Semantic Scholar and Crossref into one enriched record', async () => {
    const openalex = new OpenAlexSource({
      client: client('openalex', [
        { match: /\/works\?/, respond: recorded('openalex', 'title.search%3AEffect+of+native') },
      ]),
    });
    const s2 = new SemanticScholarSource({
      client: client('semantic_scholar', [
        {
          match: /\/paper\/search/,
          respond: recorded(
            'semantic_scholar',
            'match?query=Effect+of+native+oxide+layers+on+copper+thin-film+tensile+properties%3A+A+reactive',
          ),
        },
      ]),
    });
    const crossref = new CrossrefSource({
      client: client('crossref', [
        {
          match: /\/works\?/,
          respond: recorded(
            'crossref',
            'query.title=Effect+of+native+oxide+layers+on+copper+thin-film+tensile+properties:+A+reactive',
          ),
        },
      ]),
    });
    const search = new FederatedSearch({
      local: new FakeLocalSearch(),
      sources: [openalex, s2, crossref],
      patentSources: [],
      cache: new MemoryCache(),
    });
    const result = await search.searchPapers(request());
    const matches = result.papers.filter((paper) => paper.doi === '10.1063/1.4938384');
    expect(matches).toHaveLength(1);
    const paper = matches[0];
    expect(paper).toMatchObject({
      title:
        'Effect of native oxide layers on copper thin-film tensile properties: A reactive molecular dynamics study',
      venue: 'Journal of Applied Physics',
      identifiers: { openalex: 'W2277923667', mag: '2277923667' },
    });
    expect(paper?.ss_id).toMatch(/^[0-9a-f]{40}$/);
    expect(paper?.identifiers?.corpus_id).toMatch(/^\d+$/);
    expect(paper?.source).toBe('openalex+semantic_scholar+crossref');
    // the best citation count of the three (OpenAlex says 9, Crossref 10)
    expect(paper?.cited_by_count).toBeGreaterThanOrEqual(10);
    expect(result.sources?.map((report) => `${report.source}=${report.status}`)).toEqual([
      'index=ok',
      'openalex=ok',
      'semantic_scholar=ok',
      'crossref=ok',
    ]);
  });

  it('reports a failing source and bounds a hanging one by the deadline, answering from the rest', async () => {
    const monitor = new SourceMonitor();
    const seen: string[] = [];
    monitor.onReport((operation, report) => seen.push(`${operation}:${report.source}=${report.status}`));
    const search = new FederatedSearch({
      local: new FakeLocalSearch([testPaper('Local paper on copper oxide', { year: 2020 })]),
      sources: [
        new ScriptedSource('healthy', {
          papers: [testPaper('Upstream copper paper', { year: 2021 })],
          delayMs: 20,
        }),
        new ScriptedSource('broken', { fail: true }),
        new ScriptedSource('stuck', { hang: true }),
      ],
      patentSources: [],
      cache: new MemoryCache(),
      monitor,
      settings: { deadlineMs: 400, sourceTimeoutMs: 300 },
    });
    const started = performance.now();
    const result = await search.searchPapers(request());
    const elapsed = performance.now() - started;
    // Measured: 0.31 s; the stuck source never answers.
    expect(elapsed).toBeLessThan(3500);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(result.papers.map((paper) => paper.title).sort()).toEqual([
      'Local paper on copper oxide',
      'Upstream copper paper',
    ]);
    expect(sourcesHeader(result.sources ?? [])).toBe('index=ok;healthy=ok;broken=failed;stuck=timeout');
    expect(result.hint).toContain('Not included this time: broken failed, stuck timeout');
    expect(seen).toEqual([
      'search:index=ok',
      'search:healthy=ok',
      'search:broken=failed',
      'search:stuck=timeout',
    ]);
  });

  it('answers from the local index quickly once the breakers know the sources are down', async () => {
    const unreachable = () =>
      new UpstreamClient({
        source: 'openalex',
        retry: { retries: 0 },
        fetch: async () => {
          throw new TypeError('fetch failed (ECONNREFUSED)');
        },
      });
    const search = new FederatedSearch({
      local: new FakeLocalSearch([testPaper('Offline copper paper', { year: 2019 })]),
      sources: [
        new OpenAlexSource({ client: unreachable() }),
        new SemanticScholarSource({ client: unreachable() }),
      ],
      patentSources: [],
      cache: new MemoryCache(),
    });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const result = await search.searchPapers(request({ keywords: `warm up ${attempt}` }));
      expect(result.sources?.[1]?.status).toBe('failed');
    }
    const started = performance.now();
    const result = await search.searchPapers(request({ keywords: 'offline copper' }));
    expect(performance.now() - started).toBeLessThan(50);
    expect(result.papers.map((paper) => paper.title)).toEqual(['Offline copper paper']);
    expect(result.sources?.map((report) => report.status)).toEqual(['ok', 'skipped', 'skipped']);
    expect(result.hint).toContain('skipped (recent failures or rate limit)');
  });

  it('fails only when the index and every source failed', async () => {
    const search = new FederatedSearch({
      local: new FakeLocalSearch([], { fail: true }),
      sources: [new ScriptedSource('broken', { fail: true })],
      patentSources: [],
      cache: new MemoryCache(),
    });
    await expect(search.searchPapers(request())).rejects.toMatchObject({ code: 'upstream_unavailable' });
  });

  it('pages consistently from the cached merged list, then continues in the local index', async () => {
    const local = new FakeLocalSearch(
      Array.from({ length: 8 }, (_, index) => testPaper(`Local result number ${index + 1}`, { year: 2020 })),
    );
    const upstream = new ScriptedSource('upstream', {
      papers: Array.from({ length: 3 }, (_, index) =>
        testPaper(`Upstream result number ${index + 1}`, { year: 2021 }),
      ),
    });
    const search = new FederatedSearch({
      local,
      sources: [upstream],
      patentSources: [],
      cache: new MemoryCache(),
      settings: { depth: 4 },
    });
    const first = await search.searchPapers(request({ limit: 4 }));
    const second = await search.searchPapers(request({ limit: 4, offset: 4 }));
    const third = await search.searchPapers(request({ limit: 4, offset: 8 }));
    expect(upstream.queries).toHaveLength(1);
    expect(first.total).toBe(11);
    expect(first.nextOffset).toBe(4);
    const titles = [...first.papers, ...second.papers, ...third.papers].map((paper) => paper.title);
    expect(new Set(titles).size).toBe(11);
    expect(third.papers.map((paper) => paper.title)).toEqual([
      'Local result number 6',
      'Local result number 7',
      'Local result number 8',
    ]);
    expect(third.nextOffset).toBeNull();
    expect(second.hint).toContain('merged list reused');
  });

  it('applies filters and sort to the merged list and weights strong local BM25 matches up', async () => {
    const local = new FakeLocalSearch(
      [
        testPaper('Weak local match', { year: 2020, type: 'journal-article', cited_by_count: 1 }),
        testPaper('Strong local match', { year: 2020, type: 'journal-article', cited_by_count: 5 }),
      ],
      { scores: [0.5, 12] },
    );
    const upstream = new ScriptedSource('openalex', {
      papers: [
        testPaper('A preprint', { year: 2021, type: 'preprint', cited_by_count: 100 }),
        testPaper('Old journal paper', { year: 1990, type: 'journal-article', cited_by_count: 50 }),
        testPaper('Recent journal paper', { year: 2022, type: 'journal-article', cited_by_count: 30 }),
      ],
    });
    const search = new FederatedSearch({
      local,
      sources: [upstream],
      patentSources: [],
      cache: new MemoryCache(),
    });
    const relevance = await search.searchPapers(request({ peerReviewedOnly: true, startYear: 2000 }));
    // the local list ranked the weak match first, but its BM25 score is far below the strong one's;
    // the preprint and the 1990 paper are filtered out of the merged list
    expect(relevance.papers.map((paper) => paper.title)).toEqual([
      'Strong local match',
      'Recent journal paper',
      'Weak local match',
    ]);
    const byCitations = await search.searchPapers(
      request({ peerReviewedOnly: true, startYear: 2000, sort: 'cited_by_count' }),
    );
    expect(byCitations.papers.map((paper) => paper.cited_by_count)).toEqual([30, 5, 1]);
  });
});

describe('FederatedSearch for patents', () => {
  it('merges PatentsView with the local patent index, and is the local search itself without a patent source', async () => {
    const local = new FakeLocalSearch([], {
      patents: [
        testPaper('Display timing patent', { type: 'patent', patent_number: 'US10510317', year: 2019 }),
      ],
    });
    const patentsview = {
      name: 'patentsview',
      searchPatents: async () => ({
        papers: [
          testPaper('Controlling display performance', {
            type: 'patent',
            patent_number: 'US10510317',
            year: 2019,
            cited_by_count: 4,
          }),
          testPaper('Another display patent', { type: 'patent', patent_number: 'US9999999', year: 2018 }),
        ],
        total: 2,
      }),
    };
    const federated = new FederatedSearch({
      local,
      sources: [],
      patentSources: [patentsview],
      cache: new MemoryCache(),
    });
    const result = await federated.searchPatents(
      request({ keywords: 'display timing', peerReviewedOnly: true }),
    );
    expect(result.papers.map((paper) => paper.patent_number)).toEqual(['US10510317', 'US9999999']);
    expect(result.papers[0]).toMatchObject({ title: 'Display timing patent', cited_by_count: 4 });
    expect(sourcesHeader(result.sources ?? [])).toBe('index=ok;patentsview=ok');

    const localOnly = new FederatedSearch({
      local,
      sources: [],
      patentSources: [],
      cache: new MemoryCache(),
    });
    const plain = await localOnly.searchPatents(request({ keywords: 'display timing' }));
    expect(plain.sources).toBeUndefined();
    expect(plain.papers).toHaveLength(1);
  });
});

describe('FederatedSearch and mistakes in the request', () => {
  function federated(local: PaperSearch = new FakeLocalSearch([testPaper('Local copper paper')])) {
    const upstream = new ScriptedSource('openalex', { papers: [testPaper('Upstream copper paper')] });
    const search = new FederatedSearch({
      local,
      sources: [upstream],
      patentSources: [],
      cache: new MemoryCache(),
    });
    return { search, upstream };
  }

  it('federation swallows bad requests: start_year after end_year is a 400 naming start_year, no source asked', async () => {
    const { search, upstream } = federated();
    await expect(search.searchPapers(request({ startYear: 2020, endYear: 2010 }))).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      param: 'start_year',
    });
    await expect(search.searchPatents(request({ startYear: 2020, endYear: 2010 }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'start_year',
    });
    expect(upstream.queries).toHaveLength(0);
  });

  it('federation swallows bad requests: a query over the length limit is a 400 naming query', async () => {
    const { search, upstream } = federated();
    const query = 'copper '.repeat(400);
    await expect(search.searchPapers(request({ keywords: undefined, query }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'query',
    });
    expect(upstream.queries).toHaveLength(0);
  });

  it('federation swallows bad requests: a request the local index refuses is refused, not answered from upstream', async () => {
    const refusing: PaperSearch = {
      searchPapers: async () => {
        throw invalid('keywords', 'keywords has no searchable words (letters or digits)');
      },
      searchPatents: async () => {
        throw invalid('keywords', 'keywords has no searchable words (letters or digits)');
      },
    };
    const { search } = federated(refusing);
    await expect(search.searchPapers(request({ keywords: '!!! ???' }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'keywords',
    });
  });

  it('a broken local index is still a failed source, not a refused request', async () => {
    const { search } = federated(new FakeLocalSearch([], { fail: true }));
    const result = await search.searchPapers(request());
    expect(sourcesHeader(result.sources ?? [])).toBe('index=failed;openalex=ok');
    expect(result.papers.map((paper) => paper.title)).toEqual(['Upstream copper paper']);
  });

  it('federation hides the search note: the hint says the query was cut to its first 32 words', async () => {
    const { search } = federated();
    const words = Array.from({ length: 40 }, (_, index) => `copperword${index}`).join(' ');
    const result = await search.searchPapers(request({ keywords: undefined, query: words }));
    expect(result.papers.length).toBeGreaterThan(0);
    expect(result.hint).toMatch(/^Only the first 32 words of query \(8 left out\) were searched/);
    expect(result.hint).toContain('Sources: index (1), openalex (1).');
    const short = await search.searchPapers(request());
    expect(short.hint).not.toContain('Only the first');
  });

  describe('an empty result says why (decision 0045)', () => {
    async function emptyIndexSearch(sources: ScriptedSource[]) {
      const index = await createSqlitePaperIndex(
        join(mkdtempSync(join(tmpdir(), 'alexandria-fed-')), 'i.db'),
      );
      const local = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 0 });
      const search = new FederatedSearch({
        local,
        sources,
        patentSources: [],
        cache: new MemoryCache(),
        settings: { deadlineMs: 400, sourceTimeoutMs: 300 },
      });
      return { index, search };
    }

    it('an empty index and no source reached: sources unreachable, check the connection or fill the index', async () => {
      const { index, search } = await emptyIndexSearch([
        new ScriptedSource('openalex', { fail: true }),
        new ScriptedSource('arxiv', { hang: true }),
      ]);
      try {
        const result = await search.searchPapers(request());
        expect(result.papers).toEqual([]);
        expect(result.indexEmpty).toBe(true);
        expect(result.hint).toMatch(
          /^Nothing found: the local index holds no papers, and no upstream source could be reached \(openalex failed; arxiv timed out\)\./,
        );
        expect(result.hint).toContain("Check this machine's internet access");
        expect(result.hint).toContain('alexandria ingest <file or folder>');
        expect(result.hint).toContain('ALEXANDRIA_SOURCES=none keeps every request on this machine');
      } finally {
        await index.close();
      }
    });

    it('sources that answered with nothing: nothing matched in them, the unreached ones named', async () => {
      const { index, search } = await emptyIndexSearch([
        new ScriptedSource('openalex', { papers: [] }),
        new ScriptedSource('crossref', { fail: true }),
      ]);
      try {
        const result = await search.searchPapers(request());
        expect(result.hint).toMatch(/^No papers matched in openalex\. The local index holds no papers\./);
        expect(result.hint).toContain('Not reached this time: crossref failed; results may be incomplete.');
        expect(result.hint).toContain('Try fewer or other keywords');
      } finally {
        await index.close();
      }
    });

    it('a filled index and sources that found nothing: nothing matched, other words', async () => {
      const { index, search } = await emptyIndexSearch([new ScriptedSource('openalex', { papers: [] })]);
      try {
        await index.upsert([testPaper('Dependency parsing with stack LSTMs', { year: 2015 })]);
        const result = await search.searchPapers(request({ keywords: undefined, query: 'copper oxide' }));
        expect(result.indexEmpty).toBe(false);
        expect(result.hint).toBe(
          'No papers matched in the local index and openalex. Try other or broader words.',
        );
      } finally {
        await index.close();
      }
    });
  });
});
