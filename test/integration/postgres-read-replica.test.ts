import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresPaperIndex,
  type PostgresPaperIndex,
} from '../../src/adapters/postgres/postgres-paper-index.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { IndexQuery } from '../../src/ports/paper-index.js';
import { type Standby, startStandby } from '../helpers/pg-standby.js';
import { needsPostgresExtension, needsPostgresStandby } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';

const query = (text: string): IndexQuery => ({
  kind: 'paper',
  must: [],
  should: [{ kind: 'term', text }],
  peerReviewedOnly: false,
  sort: 'relevance',
  offset: 0,
  limit: 10,
});

const record = (title: string, n: number): Paper => ({
  ...emptyPaper(title),
  type: 'journal-article',
  year: 2020,
  doi: `10.5555/replica.${n}`,
});

/** Scans the standby itself has run on the index's tables (a hot standby keeps its own statistics). */
async function standbyScans(standby: Standby, schema: string): Promise<number> {
  const found = await standby.query(
    `select sum(seq_scan + coalesce(idx_scan, 0)) as n from pg_stat_user_tables where schemaname = '${schema}'`,
  );
  return Number(found.rows[0]?.n ?? 0);
}

describe.skipIf((await needsPostgresExtension()) || (await needsPostgresStandby()))(
  'PostgreSQL index with a real streaming read replica',
  () => {
    let standby: Standby;
    const schemaName = uniqueSchema('replica');
    let opened: PostgresPaperIndex | undefined;
    const index = () => opened as PostgresPaperIndex;
    const schema = () => schemaName;

    beforeAll(async () => {
      // The schema and a first record exist before the base backup; the rest streams.
      const writer = await createPostgresPaperIndex(testPostgresUrl, { schema: schemaName });
      await writer.upsert([record('Dependency parsing with graph neural networks', 1)]);
      await writer.close();
      standby = await startStandby();
      opened = await createPostgresPaperIndex(testPostgresUrl, {
        schema: schemaName,
        readUrls: [standby.url],
      });
    }, 120_000);

    afterAll(async () => {
      await opened?.close();
      await standby?.stop();
      await dropSchema(schemaName);
    });

    describe('the index', () => {
      it('sends searches to the replica once it has replayed the last commit', async () => {
        await index().upsert([record('Transition-based dependency parsing revisited', 2)]);
        await standby.caughtUp();
        const before = await standbyScans(standby, schema());
        const served = { ...index().searchesServed };
        const page = await index().search(query('parsing'));
        expect(page.total).toBe(2);
        expect(index().searchesServed.replicas).toBe(served.replicas + 1);
        expect(index().searchesServed.primary).toBe(served.primary);
        // The standby's own statistics show the scan (backends report them within ~10 s when idle).
        let after = before;
        for (let attempt = 0; attempt < 120 && after === before; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          after = await standbyScans(standby, schema());
        }
        expect(after).toBeGreaterThan(before);
      });

      it('answers from the primary while the replica lags, so no search misses a committed ingest', async () => {
        await standby.query('select pg_wal_replay_pause()');
        try {
          await index().upsert([record('Cross-lingual dependency parsing at scale', 3)]);
          const served = index().searchesServed.primary;
          const page = await index().search(query('parsing'));
          expect(index().searchesServed.primary).toBe(served + 1);
          expect(page.total).toBe(3);
          expect(page.papers.map((paper) => paper.title)).toContain(
            'Cross-lingual dependency parsing at scale',
          );
        } finally {
          await standby.query('select pg_wal_replay_resume()');
        }
        await standby.caughtUp();
        expect((await index().search(query('cross'))).total).toBe(1);
      });
    });
  },
);
