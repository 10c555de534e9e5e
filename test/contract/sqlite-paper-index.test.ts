import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { knownDfBm25Available } from '../../src/adapters/sqlite/bm25-known-df.js';
import {
  createSqlitePaperIndex,
  type SqlitePaperIndex,
} from '../../src/adapters/sqlite/sqlite-paper-index.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { IndexPage, IndexQuery } from '../../src/ports/paper-index.js';
import { aclCorpus, type RankingCorpus, sciFactCorpus } from '../helpers/ranking-corpus.js';
import { needsSharedData } from '../helpers/requirements.js';
import { runPaperIndexContract } from './paper-index.contract.js';

const freshPath = () => join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db');

runPaperIndexContract('SQLite FTS5', () => createSqlitePaperIndex(freshPath()));
runPaperIndexContract('SQLite FTS5, searches on a worker thread', () =>
  createSqlitePaperIndex(freshPath(), { searchThreads: 1 }),
);
// Two shards striped record by record, so that every search merges rows from both.
runPaperIndexContract('SQLite FTS5, two shards searched inline', () =>
  createSqlitePaperIndex(freshPath(), { shards: 2, shardBlock: 1 }),
);
runPaperIndexContract('SQLite FTS5, two shards searched in parallel on two threads', () =>
  createSqlitePaperIndex(freshPath(), { shards: 2, shardBlock: 1, searchThreads: 2 }),
);
runPaperIndexContract("SQLite FTS5 ranked by FTS5's own bm25() (no extension)", () =>
  createSqlitePaperIndex(freshPath(), { bm25: 'fts5' }),
);

const search: IndexQuery = {
  kind: 'paper',
  must: [],
  should: [{ kind: 'term', text: 'translation' }],
  peerReviewedOnly: false,
  sort: 'relevance',
  offset: 0,
  limit: 10,
};

describe('SQLite index shards', () => {
  it('gives a new file two full-text shards, in stripes of 1 000 ids', async () => {
    const path = freshPath();
    const index = await createSqlitePaperIndex(path);
    const papers = Array.from({ length: 1001 }, (_, n) => ({
      ...emptyPaper(`Translation study number ${n}`),
      type: 'journal-article',
    }));
    await index.upsert(papers);
    expect(index.shardCount).toBe(2);
    expect((await index.search(search)).total).toBe(1001);
    await index.close();
    const db = new Database(path, { readonly: true });
    // Ids 1–1000 live in shard 0, id 1001 starts the stripe of shard 1.
    expect(db.prepare('SELECT count(*) FROM papers_fts_1').pluck().get()).toBe(1);
    expect(
      db.prepare("SELECT rowid FROM papers_fts_1 WHERE papers_fts_1 MATCH 'translation'").pluck().all(),
    ).toEqual([1001]);
    db.close();
  });

  it('keeps the single full-text table of a file that held records before shards existed', async () => {
    const path = freshPath();
    const index = await createSqlitePaperIndex(path);
    await index.upsert([{ ...emptyPaper('Neural machine translation'), type: 'journal-article' }]);
    await index.close();
    // Back to the schema before shards (version 1): one table, no layout settings.
    const db = new Database(path);
    db.exec(
      "DROP TABLE papers_fts_1; DELETE FROM index_settings WHERE name LIKE 'fts_%'; PRAGMA user_version = 1",
    );
    db.close();
    const reopened = await createSqlitePaperIndex(path, { shards: 4 });
    expect(reopened.shardCount).toBe(1);
    expect((await reopened.search(search)).papers.map((paper) => paper.title)).toEqual([
      'Neural machine translation',
    ]);
    await reopened.upsert([{ ...emptyPaper('Statistical machine translation'), type: 'journal-article' }]);
    expect((await reopened.search(search)).total).toBe(2);
    await reopened.close();
  });
});

const ranking = (page: IndexPage) => page.papers.map((paper, index) => [paper.title, page.scores[index]]);

describe('BM25 with known document frequencies (alexandria_bm25)', () => {
  let papers: Paper[];
  const indexes: SqlitePaperIndex[] = [];
  const open = async (options: Parameters<typeof createSqlitePaperIndex>[1]) => {
    const index = await createSqlitePaperIndex(freshPath(), options);
    indexes.push(index);
    await index.upsert(papers);
    return index;
  };

  it('is built (npm ci compiles it)', () => {
    expect(knownDfBm25Available()).toBe(true);
  });

  const cases: Array<[RankingCorpus, { records: number; shardBlock: number; compared: number }]> = [
    [aclCorpus, { records: 600, shardBlock: 300, compared: 300 }],
    [sciFactCorpus, { records: 5000, shardBlock: 1000, compared: 800 }],
  ];
  for (const [corpus, expected] of cases) {
    it.skipIf(corpus.needs !== undefined && needsSharedData(corpus.needs))(
      `ranks and scores real queries exactly as FTS5's bm25(), and two shards exactly as one table: ${corpus.name}`,
      async () => {
        papers = await corpus.records();
        expect(papers.length).toBeGreaterThan(expected.records);
        const reference = await open({ shards: 1, bm25: 'fts5' });
        const knownDf = await open({ shards: 1 });
        const sharded = await open({ shards: 2, shardBlock: expected.shardBlock, searchThreads: 2 });
        expect(sharded.shardCount).toBe(2);
        let compared = 0;
        for (const query of corpus.queries(search)) {
          const best = await reference.search(query);
          for (const index of [knownDf, sharded]) {
            const page = await index.search(query);
            expect(page.total).toBe(best.total);
            const got = ranking(page);
            ranking(best).forEach(([title, score], position) => {
              expect(got[position]?.[0], `${query.should.map((c) => c.text).join(' ')} @${position}`).toBe(
                title,
              );
              expect(got[position]?.[1]).toBeCloseTo(score as number, 9);
            });
          }
          compared += best.papers.length;
        }
        expect(compared).toBeGreaterThan(expected.compared);
        for (const index of indexes.splice(0)) await index.close();
      },
      120_000,
    );
  }
});

describe('SQLite index data version', () => {
  const record = (title: string, doi: string): Paper => ({ ...emptyPaper(title), doi, year: 2021 });

  it('changes when another connection to the file commits, and keeps the file identity on reopen', async () => {
    const path = freshPath();
    const server = await createSqlitePaperIndex(path, { searchThreads: 1 });
    const ingest = await createSqlitePaperIndex(path);
    const before = await server.dataVersion();
    expect(await ingest.dataVersion()).toBe(before);
    await ingest.upsert([record('Transition-based dependency parsing with stack LSTMs', '10.1000/dp1')]);
    const after = await server.dataVersion();
    expect(after).not.toBe(before);
    expect(after.split('.')[0]).toBe(before.split('.')[0]);
    await ingest.close();
    await server.close();
    const reopened = await createSqlitePaperIndex(path);
    expect(await reopened.dataVersion()).toBe(after);
    await reopened.close();
    const other = await createSqlitePaperIndex(freshPath());
    expect((await other.dataVersion()).split('.')[0]).not.toBe(after.split('.')[0]);
    await other.close();
  });
});
