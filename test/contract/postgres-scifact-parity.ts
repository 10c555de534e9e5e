import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import type { IndexPage, IndexQuery, PaperIndex } from '../../src/ports/paper-index.js';
import { aclCorpus, type RankingCorpus, sciFactCorpus } from '../helpers/ranking-corpus.js';
import { needsSharedData } from '../helpers/requirements.js';
import { query } from './paper-index.contract.js';

/** A relevance search of papers, first page: the base the PostgreSQL tests vary. */
export const search: IndexQuery = query({});

/** Titles and scores of a page, in order. */
export const ranking = (page: IndexPage) =>
  page.papers.map((paper, index) => [paper.title, page.scores[index]]);

/**
 * The PostgreSQL index against the single-shard SQLite index over real corpora (the ACL Anthology
 * records of the fixtures; SciFact where the shared data is there): the same counts, and for real
 * queries and word pairs of them the same totals, titles in the same order and scores to six places.
 * The index's test file calls this with its name and a factory of fresh indexes.
 */
export function runSciFactRankingParity(name: string, create: () => Promise<PaperIndex>): void {
  describe(`${name} against the SQLite index`, () => {
    const cases: Array<[RankingCorpus, number]> = [
      [aclCorpus, 300],
      [sciFactCorpus, 800],
    ];
    for (const [corpus, minimum] of cases) {
      it.skipIf(corpus.needs !== undefined && needsSharedData(corpus.needs))(
        `ranks and scores real queries as the SQLite index does, with the same totals: ${corpus.name}`,
        async () => {
          const papers = await corpus.records();
          const sqlite = await createSqlitePaperIndex(
            join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db'),
            { shards: 1 },
          );
          const postgres = await create();
          for (let start = 0; start < papers.length; start += 500) {
            const batch = papers.slice(start, start + 500);
            await sqlite.upsert(batch);
            await postgres.upsert(batch);
          }
          expect(await postgres.count()).toEqual(await sqlite.count());
          let compared = 0;
          for (const query of corpus.queries(search)) {
            const expected = await sqlite.search(query);
            const page = await postgres.search(query);
            const label = `${query.must.map((c) => c.text).join(' ')} | ${query.should.map((c) => c.text).join(' ')} (${query.sort})`;
            expect(page.total, label).toBe(expected.total);
            const got = ranking(page);
            ranking(expected).forEach(([title, score], position) => {
              expect(got[position]?.[0], `${label} @${position}`).toBe(title);
              expect(got[position]?.[1], `${label} @${position}`).toBeCloseTo(score as number, 6);
            });
            compared += expected.papers.length;
          }
          expect(compared).toBeGreaterThan(minimum);
          await sqlite.close();
          await postgres.close();
        },
        180_000,
      );
    }
  });
}
