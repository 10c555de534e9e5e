import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import type { IndexPage, IndexQuery } from '../../src/ports/paper-index.js';
import { sciFactQueries, sciFactRecords } from '../helpers/scifact-index.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { runPaperIndexContract } from './paper-index.contract.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

function freshIndex() {
  const schema = uniqueSchema('paper_index');
  schemas.push(schema);
  return createPostgresPaperIndex(testPostgresUrl, { schema, maxConnections: 3 });
}

runPaperIndexContract('PostgreSQL', freshIndex);

const search: IndexQuery = {
  kind: 'paper',
  must: [],
  should: [],
  peerReviewedOnly: false,
  sort: 'relevance',
  offset: 0,
  limit: 10,
};

const ranking = (page: IndexPage) => page.papers.map((paper, index) => [paper.title, page.scores[index]]);

describe('PostgreSQL BM25 (alexandria_pg) against the SQLite index', () => {
  it('ranks and scores real queries as the SQLite index does, with the same totals', async () => {
    const papers = await sciFactRecords();
    const sqlite = await createSqlitePaperIndex(
      join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db'),
      {
        shards: 1,
      },
    );
    const postgres = await freshIndex();
    for (let start = 0; start < papers.length; start += 500) {
      const batch = papers.slice(start, start + 500);
      await sqlite.upsert(batch);
      await postgres.upsert(batch);
    }
    expect(await postgres.count()).toEqual(await sqlite.count());
    let compared = 0;
    for (const query of sciFactQueries(search)) {
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
    expect(compared).toBeGreaterThan(800);
    await sqlite.close();
    await postgres.close();
  }, 180_000);
});
