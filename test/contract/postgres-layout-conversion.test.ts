import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPostgresPaperIndex,
  type PostgresPaperIndex,
} from '../../src/adapters/postgres/postgres-paper-index.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { IndexQuery } from '../../src/ports/paper-index.js';
import { needsPostgresExtension } from '../helpers/requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from '../helpers/services.js';
import { createTsvectorLayoutIndex } from '../helpers/tsvector-layout-index.js';

/** Decision 0058: an index created with the former tsvector layout is converted when opened. */

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

function schemaFor(prefix: string): string {
  const schema = uniqueSchema(prefix);
  schemas.push(schema);
  return schema;
}

const topics = ['glacier', 'coral', 'protein', 'neural', 'parsing', 'graphene', 'malaria', 'soil'];
const verbs = ['folding', 'retreat', 'bleaching', 'networks', 'transport', 'resistance', 'erosion'];

/** Distinct records over a small vocabulary (so that words repeat across records), one patent. */
function corpus(length = 48): Paper[] {
  return Array.from({ length }, (_, n): Paper => {
    const topic = topics[n % topics.length] as string;
    const verb = verbs[(n * 3) % verbs.length] as string;
    const other = topics[(n * 5 + 1) % topics.length] as string;
    return {
      ...emptyPaper(`${topic} ${verb} in ${other} studies ${n}`),
      type: n === 7 ? 'patent' : n % 3 === 0 ? 'preprint' : 'journal-article',
      doi: n === 7 ? null : `10.5555/conv.${n}`,
      ...(n === 7 ? { patent_number: 'US1234567B2' } : {}),
      year: 2000 + (n % 20),
      publication_date: `${2000 + (n % 20)}-0${1 + (n % 9)}-15`,
      cited_by_count: (n * 37) % 101,
      abstract: `We measure ${verb} of ${topic} and ${other} ${topic} with ${verbs[n % verbs.length]} models.`,
      authors: [n % 2 === 0 ? 'Ada Lovelace' : 'Alan Turing'],
      venue: n % 4 === 0 ? 'Journal of Glacier Studies' : 'Protein Letters',
    };
  });
}

const query = (fields: Partial<IndexQuery>): IndexQuery => ({
  kind: 'paper',
  must: [],
  should: [],
  peerReviewedOnly: false,
  sort: 'relevance',
  offset: 0,
  limit: 10,
  ...fields,
});

const queries: IndexQuery[] = [
  query({ should: [{ kind: 'term', text: 'glacier' }] }),
  query({
    should: [
      { kind: 'term', text: 'coral' },
      { kind: 'term', text: 'bleaching' },
    ],
    limit: 30,
  }),
  query({ must: [{ kind: 'term', text: 'protein' }], should: [{ kind: 'term', text: 'folding' }] }),
  query({ should: [{ kind: 'phrase', text: 'neural networks' }], startYear: 2005, endYear: 2015 }),
  query({ should: [{ kind: 'term', text: 'turing' }], sort: 'cited_by_count', offset: 5 }),
  query({ should: [{ kind: 'term', text: 'soil' }], sort: 'publication_date', peerReviewedOnly: true }),
  query({ kind: 'patent', should: [{ kind: 'term', text: 'malaria' }] }),
  query({ should: [{ kind: 'term', text: 'nowhere' }] }),
];

/** What a search answers, in a form two indexes can be compared by. */
async function answers(index: PostgresPaperIndex) {
  const pages = [];
  for (const request of queries) {
    const page = await index.search(request);
    pages.push({
      total: page.total,
      ids: page.ids,
      titles: page.papers.map((paper) => paper.title),
      scores: page.scores.map((score) => Number(score.toFixed(9))),
    });
  }
  return pages;
}

async function tableState(schema: string) {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    const found = await client.query<{ layout: string | null; gin: string | null; terms: string | null }>(
      `SELECT (SELECT value FROM ${schema}.paper_index_settings WHERE name = 'layout') AS layout,
              to_regclass('${schema}.paper_records_terms')::text AS gin,
              to_regclass('${schema}.paper_terms')::text AS terms`,
    );
    return found.rows[0];
  } finally {
    await client.end();
  }
}

describe.skipIf(await needsPostgresExtension())('PostgreSQL index created with the tsvector layout', () => {
  it('is converted when opened: it answers as a fresh index of the same records, and again unchanged', async () => {
    const papers = corpus();
    const old = schemaFor('tsvector_old');
    await createTsvectorLayoutIndex(testPostgresUrl, old, papers);
    const fresh = await createPostgresPaperIndex(testPostgresUrl, { schema: schemaFor('inverted_fresh') });
    const conversions: Array<{ records: number }> = [];
    try {
      await fresh.upsert(papers);
      const converted = await createPostgresPaperIndex(testPostgresUrl, {
        schema: old,
        onConversion: (conversion) => conversions.push(conversion),
      });
      const expected = await answers(fresh);
      expect(expected[0]?.total).toBeGreaterThan(0);
      let convertedVersion = '';
      try {
        convertedVersion = await converted.dataVersion();
        expect(conversions.map((conversion) => conversion.records)).toEqual([papers.length]);
        expect(await answers(converted)).toEqual(expected);
        expect(await converted.count()).toEqual(await fresh.count());
        expect(await converted.stats()).toEqual({ records: papers.length });
        expect((await converted.findByKeys(['doi:10.5555/conv.12']))?.title).toBe(papers[12]?.title);
        expect(await tableState(old)).toEqual({ layout: 'inverted', gin: null, terms: null });
      } finally {
        await converted.close();
      }
      // Re-opening converts nothing and changes nothing: same data version, same answers.
      const again = await createPostgresPaperIndex(testPostgresUrl, {
        schema: old,
        onConversion: (conversion) => conversions.push(conversion),
      });
      try {
        expect(conversions).toHaveLength(1);
        expect(await again.dataVersion()).toBe(convertedVersion);
        expect(await answers(again)).toEqual(expected);
        // Writes after the conversion go on as in an index created inverted.
        const more = [{ ...(papers[3] as Paper), abstract: 'Glacier retreat rewritten.' }];
        await again.upsert(more);
        await fresh.upsert(more);
        expect(await answers(again)).toEqual(await answers(fresh));
      } finally {
        await again.close();
      }
    } finally {
      await fresh.close();
    }
  });

  it('is converted in batches: more records than one batch (2,000) answer as a fresh index', async () => {
    const papers = corpus(2_150);
    const old = schemaFor('tsvector_large');
    await createTsvectorLayoutIndex(testPostgresUrl, old, papers);
    const fresh = await createPostgresPaperIndex(testPostgresUrl, { schema: schemaFor('inverted_large') });
    const conversions: Array<{ records: number }> = [];
    try {
      await fresh.upsert(papers);
      const index = await createPostgresPaperIndex(testPostgresUrl, {
        schema: old,
        onConversion: (conversion) => conversions.push(conversion),
      });
      try {
        expect(conversions.map((conversion) => conversion.records)).toEqual([2_150]);
        expect(await answers(index)).toEqual(await answers(fresh));
        expect(await index.stats()).toEqual({ records: 2_150 });
      } finally {
        await index.close();
      }
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it('keeps the stored record vectors through the conversion', async () => {
    const papers = corpus().slice(0, 5);
    const old = schemaFor('tsvector_vectors');
    await createTsvectorLayoutIndex(testPostgresUrl, old, papers);
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    await client.query(
      `INSERT INTO ${old}.paper_record_vectors (id, model, vector) VALUES (2, 'm', '\\x0102'::bytea)`,
    );
    await client.end();
    const index = await createPostgresPaperIndex(testPostgresUrl, { schema: old });
    try {
      expect(await index.vectorCoverage('m')).toEqual({ withVectors: 1, records: 5 });
    } finally {
      await index.close();
    }
  });

  it('from before layouts existed (schema version 1) is converted too', async () => {
    const papers = corpus().slice(0, 12);
    const old = schemaFor('tsvector_v1');
    await createTsvectorLayoutIndex(testPostgresUrl, old, papers, 1);
    const fresh = await createPostgresPaperIndex(testPostgresUrl, { schema: schemaFor('inverted_v1') });
    const index = await createPostgresPaperIndex(testPostgresUrl, { schema: old });
    try {
      await fresh.upsert(papers);
      expect(await answers(index)).toEqual(await answers(fresh));
      expect((await tableState(old))?.layout).toBe('inverted');
    } finally {
      await index.close();
      await fresh.close();
    }
  });

  it('is left as it was when the conversion fails (all or nothing)', async () => {
    const old = schemaFor('tsvector_broken');
    await createTsvectorLayoutIndex(testPostgresUrl, old, corpus().slice(0, 4));
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    try {
      // A record that cannot be read back: the conversion stops on it.
      await client.query(`UPDATE ${old}.paper_records SET record = '\\x00ff'::bytea WHERE id = 3`);
      await expect(createPostgresPaperIndex(testPostgresUrl, { schema: old })).rejects.toThrow();
      expect(await tableState(old)).toEqual({
        layout: 'tsvector',
        gin: `${old}.paper_records_terms`,
        terms: `${old}.paper_terms`,
      });
      const rows = await client.query<{ n: string; docs: string }>(
        `SELECT count(*) AS n, count(doc) AS docs FROM ${old}.paper_records WHERE terms IS NOT NULL`,
      );
      expect(rows.rows[0]).toEqual({ n: '4', docs: '0' });
      const words = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${old}.paper_words`);
      expect(words.rows[0]?.n).toBe('0');
    } finally {
      await client.end();
    }
  });
});
