import type pg from 'pg';
import {
  ByteWriter,
  DocBlock,
  docsPerBlock,
  encodePosting,
} from '../../src/adapters/postgres/postgres-inverted-codec.js';

/**
 * A paper index written straight into tables with the adapter's own encoders, for the
 * extension's regression and interrupt tests: any size in seconds, and independent of the
 * adapter's migration (so the same tests also run against an older extension, where they must
 * fail). Documents 1..documents; every one holds `common` (title and abstract) directly followed by
 * `survey` (the phrase "common survey"); every 100th also holds `rare`. Word ids: common 1, survey
 * 2, rare 3. Postings are sealed in blocks of `blockPostings`, the rest is each word's tail.
 */
export const syntheticWords = { common: 1, survey: 2, rare: 3 } as const;

export async function writeSyntheticIndex(
  client: pg.Client | pg.PoolClient,
  schema: string,
  documents: number,
  blockPostings = 128,
): Promise<void> {
  await client.query(`CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.paper_index_stats (data_version bigint NOT NULL, records bigint NOT NULL, tokens bigint NOT NULL);
    CREATE TABLE ${schema}.paper_words (word text PRIMARY KEY, id bigint UNIQUE, records int4, tail_docs bytea, tail_positions bytea);
    CREATE TABLE ${schema}.paper_postings (word bigint, seq bigint, docs bytea NOT NULL, positions bytea NOT NULL, PRIMARY KEY (word, seq));
    CREATE TABLE ${schema}.paper_docs (block int4 PRIMARY KEY, core bytea NOT NULL, keys bytea NOT NULL)`);
  const postings: { word: number; seq: number; docs: Buffer; positions: Buffer }[] = [];
  let seq = 0;
  for (const [name, id] of Object.entries(syntheticWords)) {
    const holders = Array.from({ length: documents }, (_, at) => at + 1).filter(
      (doc) => name !== 'rare' || doc % 100 === 0,
    );
    let docs = new ByteWriter();
    let positions = new ByteWriter();
    let last = 0;
    let inBlock = 0;
    for (const doc of holders) {
      // common at positions 1 (title) and 5 (abstract), survey right after each; rare at 9.
      const occurrences =
        name === 'common' ? [1, 1, 0, 1, 5] : name === 'survey' ? [1, 1, 0, 2, 6] : [0, 1, 0, 9];
      encodePosting(docs, positions, doc - last, Int32Array.from(occurrences), 0, occurrences.length);
      last = doc;
      inBlock += 1;
      if (inBlock === blockPostings) {
        seq += 1;
        postings.push({ word: id, seq, docs: docs.toBuffer(), positions: positions.toBuffer() });
        docs = new ByteWriter();
        positions = new ByteWriter();
        last = 0;
        inBlock = 0;
      }
    }
    await client.query(`INSERT INTO ${schema}.paper_words VALUES ($1, $2, $3, $4, $5)`, [
      name,
      id,
      holders.length,
      inBlock > 0 ? docs.toBuffer() : null,
      inBlock > 0 ? positions.toBuffer() : null,
    ]);
  }
  await client.query(
    `INSERT INTO ${schema}.paper_postings SELECT * FROM unnest($1::int8[], $2::int8[], $3::bytea[], $4::bytea[])`,
    [
      postings.map((row) => row.word),
      postings.map((row) => row.seq),
      postings.map((row) => row.docs),
      postings.map((row) => row.positions),
    ],
  );
  const blocks = new Map<number, DocBlock>();
  for (let doc = 1; doc <= documents; doc += 1) {
    const number = Math.floor(doc / docsPerBlock);
    const block = blocks.get(number) ?? new DocBlock();
    blocks.set(number, block);
    block.put(doc, {
      length: 20,
      year: 2000 + (doc % 20),
      patent: false,
      reviewed: doc % 2 === 0,
      citedByCount: doc % 1000,
      published: `${2000 + (doc % 20)}-01-01`,
    });
  }
  await client.query(
    `INSERT INTO ${schema}.paper_docs SELECT * FROM unnest($1::int4[], $2::bytea[], $3::bytea[])`,
    [
      [...blocks.keys()],
      [...blocks.values()].map((block) => block.core),
      [...blocks.values()].map((block) => block.keys),
    ],
  );
  await client.query(`INSERT INTO ${schema}.paper_index_stats VALUES (1, $1, $2)`, [
    documents,
    documents * 20,
  ]);
}

/** The arguments of alexandria_inverted_search after the schema (1.3) for the given clauses. */
export function searchArguments(
  clauses: number[][],
  options: { required?: number[]; scored?: number[]; sort?: number; limit?: number; offset?: number } = {},
): unknown[] {
  const scored = options.scored ?? clauses.map((_, at) => at);
  const required = options.required ?? [];
  return [
    clauses.flat(),
    clauses.map((clause) => clause.length),
    required,
    required.length > 0 ? [] : clauses.map((_, at) => at),
    scored,
    scored.map(() => 1.5),
    [3, 1, 0.5],
    20,
    -1,
    false,
    null,
    null,
    options.sort ?? 0,
    options.limit ?? 10,
    options.offset ?? 0,
  ];
}

const types = [
  'int8[]',
  'int4[]',
  'int4[]',
  'int4[]',
  'int4[]',
  'float8[]',
  'float8[]',
  'float8',
  'int4',
  'bool',
  'int4',
  'int4',
  'int4',
  'int4',
  'int4',
];

/** The SQL of a search: `schema` given (1.3) or, when null, the form that reads the search_path. */
export function searchSql(withSchema: boolean, functionSchema = 'public'): string {
  const args = (withSchema ? ['regnamespace', ...types] : types).map((type, at) => `$${at + 1}::${type}`);
  return `SELECT doc, score, total FROM ${functionSchema}.alexandria_inverted_search(${args.join(', ')})`;
}
