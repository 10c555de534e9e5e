import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakePaperIndex } from '../../test/fakes/fake-paper-index.js';
import { MemoryCache } from '../adapters/memory/memory-cache.js';
import { createSqlitePaperIndex } from '../adapters/sqlite/sqlite-paper-index.js';
import { emptyPaper, type Paper } from '../domain/paper.js';
import type { SearchRequest } from '../domain/search.js';
import { SearchService } from './search-service.js';

const request = (fields: Partial<SearchRequest>): SearchRequest => ({
  sort: 'relevance',
  peerReviewedOnly: true,
  offset: 0,
  limit: 10,
  ...fields,
});

const paper = (title: string, fields: Partial<Paper> = {}): Paper => ({ ...emptyPaper(title), ...fields });

function service(index: FakePaperIndex, ttl = 60) {
  return new SearchService(index, new MemoryCache(), { cacheTtlSeconds: ttl });
}

describe('SearchService', () => {
  it('requires keyword words, ranks with query words and requires quoted phrases from either', async () => {
    const index = new FakePaperIndex([{ papers: [paper('A')] }]);
    await service(index).searchPapers(
      request({
        keywords: 'CRISPR off-target "guide RNA"',
        query: 'How do \\"base editors\\" reduce off-target effects?',
        startYear: 2015,
        endYear: 2020,
        sort: 'cited_by_count',
      }),
    );
    expect(index.queries[0]).toEqual({
      kind: 'paper',
      must: [
        { kind: 'phrase', text: 'guide rna' },
        { kind: 'phrase', text: 'base editors' },
        { kind: 'term', text: 'crispr' },
        { kind: 'term', text: 'off-target' },
      ],
      should: [
        { kind: 'term', text: 'reduce' },
        { kind: 'term', text: 'off-target' },
        { kind: 'term', text: 'effects' },
      ],
      peerReviewedOnly: true,
      sort: 'cited_by_count',
      offset: 0,
      limit: 10,
      startYear: 2015,
      endYear: 2020,
    });
  });

  it('searches patents as their own kind', async () => {
    const index = new FakePaperIndex();
    await service(index).searchPatents(request({ query: '"wireless charging"', fullUserPrompt: 'find it' }));
    expect(index.queries[0]).toMatchObject({
      kind: 'patent',
      must: [{ kind: 'phrase', text: 'wireless charging' }],
      should: [],
    });
  });

  it('relaxes keywords into ranking words when no paper has them all, and says so', async () => {
    const index = new FakePaperIndex([{ papers: [] }, { papers: [paper('Partial match')], total: 1 }]);
    const result = await service(index).searchPapers(request({ keywords: 'quantum gravity banana' }));
    expect(index.queries).toHaveLength(2);
    expect(index.queries[1]).toMatchObject({
      must: [],
      should: [{ text: 'quantum' }, { text: 'gravity' }, { text: 'banana' }],
    });
    expect(result.papers.map((record) => record.title)).toEqual(['Partial match']);
    expect(result.scores).toEqual([10]);
    expect(result.hint).toContain('No papers contain every keyword (quantum, gravity, banana)');
  });

  it('pages: next offset only when a full page came back and more remain', async () => {
    const ten = Array.from({ length: 10 }, (_, index) => paper(`P${index}`));
    const more = await service(new FakePaperIndex([{ papers: ten, total: 25 }])).searchPapers(
      request({ query: 'x' }),
    );
    expect(more).toMatchObject({ total: 25, nextOffset: 10 });
    expect(more.hint).toContain('Next page: offset=10');
    const last = await service(new FakePaperIndex([{ papers: ten.slice(0, 5), total: 25 }])).searchPapers(
      request({ query: 'x', offset: 20 }),
    );
    expect(last.nextOffset).toBeNull();
    const capped = await service(
      new FakePaperIndex([{ papers: ten, total: 10_000, totalIsExact: false }]),
    ).searchPapers(request({ query: 'x', offset: 9990 }));
    expect(capped.nextOffset).toBe(10_000);
    expect(capped.hint).toContain('of more than 10000 papers');
  });

  it('shapes records: source index, pdf_id from an open PDF, a landing page for patents', async () => {
    const index = new FakePaperIndex([
      {
        papers: [
          paper('Open paper', { pdf_url: 'https://example.org/a.pdf' }),
          paper('A patent', { type: 'patent', patent_number: 'US 8,926,509 B2' }),
        ],
      },
    ]);
    const { papers } = await service(index).searchPapers(request({ query: 'x' }));
    expect(papers[0]).toMatchObject({ source: 'index', pdf_id: 'PDF_URL:https://example.org/a.pdf' });
    expect(papers[1]?.url).toBe('https://patents.google.com/patent/US8926509B2');
  });

  it('answers an identical search from the cache, and a different one from the index', async () => {
    const index = new FakePaperIndex([{ papers: [paper('Cached')] }]);
    const search = service(index);
    const first = await search.searchPapers(request({ keywords: 'Graph Neural', query: 'x' }));
    const again = await search.searchPapers(request({ keywords: ' graph neural ', query: 'X' }));
    expect(again).toEqual(first);
    expect(index.queries).toHaveLength(1);
    await search.searchPapers(request({ keywords: 'graph neural', query: 'x', offset: 10 }));
    await search.searchPatents(request({ keywords: 'graph neural', query: 'x' }));
    expect(index.queries).toHaveLength(3);
    const uncached = new FakePaperIndex([{ papers: [paper('Fresh')] }]);
    const noCache = service(uncached, 0);
    await noCache.searchPapers(request({ query: 'x' }));
    await noCache.searchPapers(request({ query: 'x' }));
    expect(uncached.queries).toHaveLength(2);
  });

  // Issue 12: the cache served answers from before an ingest for its whole TTL, and, shared through
  // Redis, one replica's answers (from its own index) to another.
  it('answers a search cached before another connection ingests with the new records', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'alexandria-search-cache-')), 'index.db');
    const served = await createSqlitePaperIndex(path);
    const writer = await createSqlitePaperIndex(path);
    const search = new SearchService(served, new MemoryCache(), { cacheTtlSeconds: 600 });
    const parsing = request({ keywords: 'dependency parsing', peerReviewedOnly: false });
    expect((await search.searchPapers(parsing)).total).toBe(0);
    await writer.upsert([paper('Dependency parsing with stack LSTMs', { doi: '10.1000/p1', year: 2015 })]);
    expect((await search.searchPapers(parsing)).total).toBe(1);
    await writer.close();
    await served.close();
  });

  it('never shares cached answers between services over different indexes', async () => {
    const cache = new MemoryCache(); // one Redis for two replicas
    const folder = mkdtempSync(join(tmpdir(), 'alexandria-search-cache-'));
    const holder = await createSqlitePaperIndex(join(folder, 'a.db'));
    const empty = await createSqlitePaperIndex(join(folder, 'b.db'));
    await holder.upsert([paper('Dependency parsing with stack LSTMs', { doi: '10.1000/p1', year: 2015 })]);
    const parsing = request({ keywords: 'dependency parsing', peerReviewedOnly: false });
    const options = { cacheTtlSeconds: 600 };
    expect((await new SearchService(empty, cache, options).searchPapers(parsing)).total).toBe(0);
    expect((await new SearchService(holder, cache, options).searchPapers(parsing)).total).toBe(1);
    await holder.close();
    await empty.close();
  });

  it('refuses bad requests naming the parameter', async () => {
    const search = service(new FakePaperIndex());
    const cases: Array<[Partial<SearchRequest>, string]> = [
      [{}, 'query'],
      [{ keywords: '  ', query: '' }, 'query'],
      [{ query: '?!' }, 'query'],
      [{ keywords: '--' }, 'keywords'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', limit: 101 }, 'limit'],
      [{ query: 'x', offset: -1 }, 'offset'],
      [{ query: 'x', offset: 10_001 }, 'offset'],
      [{ query: 'x', startYear: 99 }, 'start_year'],
      [{ query: 'x', endYear: 30_000 }, 'end_year'],
      [{ query: 'x', startYear: 2020, endYear: 2019 }, 'start_year'],
      [{ query: 'x'.repeat(2001) }, 'query'],
      [{ keywords: 'y '.repeat(1001) }, 'keywords'],
    ];
    for (const [fields, param] of cases) {
      await expect(search.searchPapers(request(fields))).rejects.toMatchObject({
        code: 'invalid_request',
        param,
      });
    }
  });

  it('refuses a text past the length limit (every caller, not only HTTP), naming the limit', async () => {
    const search = service(new FakePaperIndex());
    await expect(search.searchPatents(request({ query: 'a '.repeat(1500) }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'query',
      message: expect.stringContaining('at most 2000 characters'),
    });
  });

  it('huge query makes a slow search: at most 32 words per parameter reach the index, and the hint says so', async () => {
    const index = new FakePaperIndex([{ papers: [paper('A')] }]);
    const words = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => `${prefix}${index}`).join(' ');
    const result = await service(index).searchPapers(
      request({ keywords: words('k', 40), query: `"${'a '.repeat(950)}" ${words('q', 5)}` }),
    );
    const query = index.queries[0];
    const wordCount = (clauses: Array<{ text: string }>) =>
      clauses.reduce((sum, clause) => sum + clause.text.split(' ').length, 0);
    expect(query?.must).toHaveLength(1 + 32);
    expect(query?.must[0]).toEqual({ kind: 'phrase', text: Array(32).fill('a').join(' ') });
    expect(wordCount(query?.must ?? [])).toBe(64);
    expect(query?.should).toEqual([]);
    expect(result.hint).toMatch(
      /^Only the first 32 words of keywords \(8 left out\) and query \(923 left out\) were searched/,
    );
    const short = await service(new FakePaperIndex([{ papers: [paper('A')] }])).searchPapers(
      request({ query: words('q', 32) }),
    );
    expect(short.hint).not.toContain('Only the first');
  });

  it('finds a paper by typed identifier through its identity key', async () => {
    const known = paper('Known', { doi: '10.1000/x', pdf_url: 'https://example.org/x.pdf' });
    const index = new FakePaperIndex([], new Map([['doi:10.1000/x', known]]));
    const found = await service(index).findByIdentifier({ type: 'DOI', value: '10.1000/x' });
    expect(found).toMatchObject({ title: 'Known', pdf_id: 'PDF_URL:https://example.org/x.pdf' });
    expect(index.lookedUp).toEqual([['doi:10.1000/x']]);
    expect(await service(index).findByIdentifier({ type: 'ACL', value: 'P19-1001' })).toBeNull();
  });

  describe('an empty result says why (decision 0045)', () => {
    it('on an empty index with no source: nothing to search, and how to fill the index or turn sources on', async () => {
      const folder = mkdtempSync(join(tmpdir(), 'alexandria-search-empty-'));
      const index = await createSqlitePaperIndex(join(folder, 'index.db'));
      try {
        const search = new SearchService(index, new MemoryCache(), { cacheTtlSeconds: 600 });
        const first = await search.searchPapers(request({ query: 'hallucination detection' }));
        expect(first.papers).toEqual([]);
        expect(first.indexEmpty).toBe(true);
        expect(first.hint).toMatch(
          /^Nothing to search: the local index holds no papers and upstream sources are off/,
        );
        expect(first.hint).toContain('alexandria ingest <file or folder>');
        expect(first.hint).toContain('leaving ALEXANDRIA_SOURCES unset');

        // Filled, the same search is a plain "nothing matched", with what to change.
        await index.upsert([paper('Dependency parsing with stack LSTMs', { doi: '10.1000/p1', year: 2015 })]);
        const none = await search.searchPapers(
          request({ keywords: 'hallucination detection', startYear: 2020 }),
        );
        expect(none.indexEmpty).toBe(false);
        expect(none.hint).toMatch(
          /^No papers matched in the local index\. Only the local index was searched/,
        );
        expect(none.hint).toContain('the question in query rather than keywords');
        expect(none.hint).toContain('a wider start_year/end_year');
        expect(none.hint).toContain('peer_reviewed_only=false');
        expect(none.hint).not.toContain('alexandria ingest');

        // Patents are their own kind: an index of papers holds no patents.
        const patents = await search.searchPatents(request({ keywords: 'parsing' }));
        expect(patents.hint).toMatch(
          /^Nothing to search: the local index holds no patents and no upstream patent source is on/,
        );
        expect(patents.hint).toContain('ALEXANDRIA_PATENTSVIEW_API_KEY');
      } finally {
        await index.close();
      }
    });

    it('counts the index once per data version while a kind is missing, and not at all once it is held', async () => {
      const index = new FakePaperIndex([{ papers: [] }]);
      let counted = 0;
      const count = index.count.bind(index);
      index.count = async () => {
        counted += 1;
        return count();
      };
      const search = service(index, 0);
      await search.searchPapers(request({ keywords: 'one' }));
      await search.searchPapers(request({ keywords: 'two' }));
      expect(counted).toBe(1);
      await index.upsert([paper('Now there is one')]);
      expect((await search.searchPapers(request({ keywords: 'three' }))).indexEmpty).toBe(false);
      await search.searchPapers(request({ keywords: 'four' }));
      expect(counted).toBe(2);
    });

    it('past the last page: lower the offset, not other words', async () => {
      const index = new FakePaperIndex([{ papers: [], total: 12 }]);
      await index.upsert([paper('Held')]);
      const result = await service(index).searchPapers(request({ keywords: 'parsing', offset: 20 }));
      expect(result.hint).toBe('No papers at offset 20: the search has 12. Lower the offset.');
    });
  });
});
