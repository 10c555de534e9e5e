import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { IndexClause } from '../../src/ports/paper-index.js';
import { needsPostgresExtension } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { ranking, search } from './postgres-scifact-parity.js';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

/** The posting lists' own cases; the paper-index contract runs in postgres-paper-index.test.ts. */
describe.skipIf(await needsPostgresExtension())('on PostgreSQL', () => {
  const term = (text: string): IndexClause => ({ kind: 'term', text });
  const phrase = (text: string): IndexClause => ({ kind: 'phrase', text });

  describe('PostgreSQL posting lists: postings after merges and folds', () => {
    const record = (title: string, fields: Partial<Paper>): Paper => ({
      ...emptyPaper(title),
      type: 'conference-paper',
      year: 2020,
      publication_date: '2020',
      ...fields,
    });

    /** Word document counts and index totals, as stored. */
    async function statistics(schema: string) {
      const client = new pg.Client({ connectionString: testPostgresUrl });
      await client.connect();
      try {
        const words = await client.query<{ word: string; records: number }>(
          `SELECT word, records FROM ${schema}.paper_words WHERE records <> 0 ORDER BY word`,
        );
        const stats = await client.query<{ records: string; tokens: string }>(
          `SELECT records, tokens FROM ${schema}.paper_index_stats`,
        );
        return { words: words.rows, totals: stats.rows[0] };
      } finally {
        await client.end();
      }
    }

    it('keeps word counts, totals and matches equal to an index built from the final records', async () => {
      const schemaA = uniqueSchema('paper_inverted');
      const schemaB = uniqueSchema('paper_inverted');
      schemas.push(schemaA, schemaB);
      const changed = await createPostgresPaperIndex(testPostgresUrl, {
        schema: schemaA,
      });
      await changed.upsert([
        record('Glacier melt under warming', { doi: '10.9/a', abstract: 'Ice sheets retreat quickly.' }),
        record('Preprint on coral bleaching', { identifiers: { arxiv: '2101.00002' }, type: 'preprint' }),
        record('Coral bleaching in warm seas', { doi: '10.9/c', identifiers: { doi: '10.9/c' } }),
        record('Seagrass carbon storage', { doi: '10.9/d', cited_by_count: 3 }),
      ]);
      // Searched before the changes (the connection caches document metadata per data version).
      expect((await changed.search({ ...search, should: [term('ice')] })).total).toBe(1);
      const before = await changed.search({ ...search, should: [term('seagrass')], sort: 'cited_by_count' });
      expect(before.papers[0]?.cited_by_count).toBe(3);
      // New abstract (new text), a fold of the preprint into the article, only new citations.
      await changed.upsert([
        record('Glacier melt under warming', { doi: '10.9/a', abstract: 'Glaciers thin; meltwater rises.' }),
        record('Coral bleaching in warm seas', {
          doi: '10.9/c',
          identifiers: { doi: '10.9/c', arxiv: '2101.00002' },
        }),
        record('Seagrass carbon storage', { doi: '10.9/d', cited_by_count: 30 }),
      ]);
      const finalRecords = (await changed.recordsWithoutVectors('none', 0, 100)).map((entry) => entry.paper);
      expect(finalRecords).toHaveLength((await changed.count()).papers);
      const fresh = await createPostgresPaperIndex(testPostgresUrl, { schema: schemaB });
      await fresh.upsert(finalRecords);
      expect(await statistics(schemaA)).toEqual(await statistics(schemaB));
      for (const words of ['ice', 'glaciers', 'preprint', 'coral', 'seagrass', 'carbon storage']) {
        const q = { ...search, should: [words.includes(' ') ? phrase(words) : term(words)] };
        const [a, b] = [await changed.search(q), await fresh.search(q)];
        expect(a.total, words).toBe(b.total);
        expect(ranking(a), words).toEqual(ranking(b));
      }
      expect((await changed.search({ ...search, should: [term('ice')] })).total).toBe(0);
      const cited = await changed.search({ ...search, should: [term('seagrass')], sort: 'cited_by_count' });
      expect(cited.papers[0]?.cited_by_count).toBe(30);
      await changed.close();
      await fresh.close();
    });
  });

  describe('PostgreSQL posting lists: a word only scored is read where the matches are', () => {
    // "moss" is in every record (its postings fill many sealed blocks and a tail); "lichen" in four,
    // at the first document, two neighbours and the last. A search matched by "lichen" decodes only
    // the blocks of "moss" that hold a match: scores and totals must stay those of the SQLite index.
    const records = Array.from({ length: 1300 }, (_, index) => ({
      ...emptyPaper(`Survey plot ${index} of the northern slope`),
      type: 'conference-paper',
      year: 2000 + (index % 20),
      publication_date: `${2000 + (index % 20)}`,
      doi: `10.77/plot.${index}`,
      abstract: [
        `Moss cover was ${index % 7 === 0 ? 'alpine moss, ' : ''}measured on plot ${index}.`,
        [0, 1, 640, 1299].includes(index) ? 'Lichen grew among the moss and alpine moss.' : '',
      ].join(' '),
    }));

    it('ranks and totals as the SQLite index does, for matches at block edges and in the tail', async () => {
      // A candidate budget of 10 records: "lichen" alone draws the candidates, "moss" only scores
      // (at the default 25,000 that takes a corpus of the bench's size); every word is scored.
      const plan = { candidateBudget: 10, commonFraction: 1, commonFloor: 1000 };
      const sqlite = await createSqlitePaperIndex(
        join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db'),
        { shards: 1, ...plan },
      );
      const schema = uniqueSchema('paper_inverted');
      schemas.push(schema);
      const postgres = await createPostgresPaperIndex(testPostgresUrl, { schema, plan });
      for (let start = 0; start < records.length; start += 250) {
        await sqlite.upsert(records.slice(start, start + 250));
        await postgres.upsert(records.slice(start, start + 250));
      }
      const queries = [
        { ...search, should: [term('lichen'), term('moss')] },
        { ...search, should: [term('lichen'), phrase('alpine moss')] },
        { ...search, must: [term('lichen')], should: [term('moss'), term('plot')] },
        { ...search, should: [term('lichen'), term('moss')], startYear: 2000, endYear: 2000 },
        { ...search, should: [term('lichen'), term('moss')], offset: 2, limit: 2 },
      ];
      for (const query of queries) {
        const [expected, page] = [await sqlite.search(query), await postgres.search(query)];
        const label = JSON.stringify([query.must, query.should, query.startYear, query.offset]);
        expect(page.total, label).toBe(expected.total);
        expect(expected.papers.length, label).toBeGreaterThan(0);
        const got = ranking(page);
        ranking(expected).forEach(([title, score], position) => {
          expect(got[position]?.[0], `${label} @${position}`).toBe(title);
          expect(got[position]?.[1], `${label} @${position}`).toBeCloseTo(score as number, 6);
        });
      }
      await sqlite.close();
      await postgres.close();
    });
  });
});
