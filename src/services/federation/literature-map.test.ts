import { describe, expect, it } from 'vitest';
import { FakeLocalSearch, testPaper } from '../../../test/fakes/fake-paper-sources.js';
import { recorded, recordedFile, replayFetch } from '../../../test/fakes/recorded-fetch.js';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { SemanticScholarSource } from '../../adapters/sources/semantic-scholar/semantic-scholar-source.js';
import { UpstreamClient } from '../../adapters/sources/shared/upstream-client.js';
import { LiteratureMapService } from './literature-map.js';
import { PaperResolver } from './paper-resolver.js';

const responses = 'semantic_scholar/responses/danielnsilva_semanticscholar';
const turing = { type: 'SS_ID', value: '2d5673caa9e6af3a7b82a43f19ee920992db07ad' } as const;

describe('LiteratureMapService', () => {
  it('gathers references, citations and recommendations from Semantic Scholar recordings', async () => {
    const citation = recordedFile(`${responses}/Citation.json`);
    const fetch = replayFetch([
      { match: /\/references\?/, respond: recorded('semantic_scholar', 'references?fields=title&offset=0') },
      { match: /\/citations\?/, respond: { status: 200, body: `{"data":[${citation.body}]}` } },
      {
        match: /\/forpaper\//,
        respond: recorded(
          'semantic_scholar',
          'forpaper/10.2139/ssrn.2250500?fields=title&limit=100&from=recent',
        ),
      },
      { match: /\/graph\/v1\/paper\/2d5673/, respond: recordedFile(`${responses}/Paper.json`) },
    ]);
    const s2 = new SemanticScholarSource({
      client: new UpstreamClient({ source: 'semantic_scholar', fetch, retry: { retries: 0 } }),
    });
    const cache = new MemoryCache();
    const service = new LiteratureMapService({
      resolver: new PaperResolver({ sources: [s2], cache }),
      sources: [s2],
      local: new FakeLocalSearch([
        testPaper('Computing Machinery and Intelligence'),
        testPaper('Minds, brains and programs'),
      ]),
      cache,
    });
    const map = await service.map(turing, { limit: 5 });
    expect(map.paper.title).toBe('Computing Machinery and Intelligence');
    expect(map.references).toHaveLength(5);
    expect(map.references[0]?.title).toBe(
      'Group lending or individual lending? Evidence from a randomised field experiment in Mongolia',
    );
    expect(map.citations.map((paper) => paper.doi)).toEqual(['10.1109/lra.2022.3229266']);
    // related: S2 recommendations fused with the local title search (the paper itself left out)
    expect(map.related).toHaveLength(5);
    expect(map.related.map((paper) => paper.title)).toContain('Minds, brains and programs');
    expect(map.related.map((paper) => paper.title)).not.toContain('Computing Machinery and Intelligence');
    expect(map.sources.map((report) => `${report.source}=${report.status}`)).toEqual([
      'semantic_scholar=ok',
      'semantic_scholar.references=ok',
      'semantic_scholar.citations=ok',
      'semantic_scholar.related=ok',
      'index.related=ok',
    ]);
    expect(map.hint).toMatch(/^5 references, 1 citing papers, 5 related papers\./);
    const calls = fetch.calls.length;
    await service.map(turing, { limit: 5 });
    expect(fetch.calls.length).toBe(calls);
  });

  it('offline, maps a paper of the local index to related local papers and says why the graph is empty', async () => {
    const inIndex = testPaper('Attention is all you need', { doi: '10.5555/attention' });
    const local = new FakeLocalSearch([inIndex, testPaper('Transformers for long documents')], {
      known: [inIndex],
    });
    const cache = new MemoryCache();
    const service = new LiteratureMapService({
      resolver: new PaperResolver({ local, sources: [], cache }),
      sources: [],
      local,
      cache,
    });
    const map = await service.map({ type: 'DOI', value: '10.5555/attention' });
    expect(map.related.map((paper) => paper.title)).toEqual(['Transformers for long documents']);
    // The title ranks (query), it is not required word for word (keywords): only the paper has that.
    const related = local.requests.at(-1);
    expect(related?.query).toBe('Attention is all you need');
    expect(related?.keywords).toBeUndefined();
    expect(map.references).toEqual([]);
    expect(map.hint).toContain('No citation graph was available');
  });

  it('answers 404 for a paper nobody knows', async () => {
    const cache = new MemoryCache();
    const service = new LiteratureMapService({
      resolver: new PaperResolver({ local: new FakeLocalSearch(), sources: [], cache }),
      sources: [],
      local: new FakeLocalSearch(),
      cache,
    });
    await expect(service.map({ type: 'DOI', value: '10.1/none' })).rejects.toMatchObject({
      code: 'not_found',
      param: 'paper_id',
    });
  });
});
