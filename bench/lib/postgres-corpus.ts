import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import {
  createPostgresPaperIndex,
  type PostgresPaperIndex,
} from '../../src/adapters/postgres/postgres-paper-index.js';
import type { Paper } from '../../src/domain/paper.js';
import { CorpusGenerator, generatorVersion, loadBaseRecords } from './large-corpus.js';

/** The benches' PostgreSQL database (BENCH_DATABASE_URL to use another); created when missing. */
export const benchUrl =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/alexandria_bench';

export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${name.replace(/[^a-z0-9_]/g, '')}`);
  } finally {
    await client.end();
  }
}

/** What a build of the PostgreSQL corpus measured, kept in `.bench/` beside the SQLite notes. */
export interface PostgresCorpusNote {
  records: number;
  buildSeconds: number;
  /** Records/s over the build's last tenth: the upsert rate into an index of about this size. */
  lastTenthRate: number;
}

/** The schema of the corpus of `records` records (the generator's version in its name). */
export function corpusSchema(records: number): string {
  return `corpus_v${generatorVersion}_${records}`;
}

/**
 * The large corpus of `records` records (the same generator, the same records in the same order as
 * the SQLite one, bench/lib/large-corpus.ts) in its own schema of the bench database, built once
 * through `upsert` in batches of 2,000 and reused; `note` is null when the schema was built by a run
 * that left no note.
 */
export async function postgresCorpus(
  records: number,
  log: (line: string) => void,
): Promise<{ index: PostgresPaperIndex; schema: string; note: PostgresCorpusNote | null }> {
  await ensureDatabase(benchUrl);
  const schema = corpusSchema(records);
  const folder = join(import.meta.dirname, '..', '..', '.bench');
  await mkdir(folder, { recursive: true });
  const notePath = join(folder, `pg-${schema}.json`);
  const index = await createPostgresPaperIndex(benchUrl, { schema });
  const counts = await index.count();
  const complete = existsSync(notePath);
  if (complete && counts.papers + counts.patents > 0) {
    return { index, schema, note: JSON.parse(readFileSync(notePath, 'utf8')) as PostgresCorpusNote };
  }
  if (counts.papers + counts.patents > 0) {
    // A build cut short (no note): start again.
    await index.close();
    const client = new pg.Client({ connectionString: benchUrl });
    await client.connect();
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
    return postgresCorpus(records, log);
  }
  const generator = new CorpusGenerator(await loadBaseRecords());
  const started = performance.now();
  const lastTenthFrom = Math.floor(records * 0.9);
  let lastTenthStarted = started;
  let serial = 0;
  let batch: Paper[] = [];
  while (serial < records) {
    if (serial === lastTenthFrom) lastTenthStarted = performance.now();
    batch.push(generator.next());
    serial += 1;
    if (batch.length === 2000 || serial === records) {
      await index.upsert(batch);
      batch = [];
      if (serial % 100_000 === 0)
        log(`postgres corpus: ${serial} records in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  }
  const upserted = performance.now();
  await index.optimize();
  const note: PostgresCorpusNote = {
    records,
    buildSeconds: (upserted - started) / 1000,
    lastTenthRate: (records - lastTenthFrom) / ((upserted - lastTenthStarted) / 1000),
  };
  writeFileSync(notePath, JSON.stringify(note, null, 2));
  return { index, schema, note };
}

/** Bytes of every table of `schema` (with indexes and TOAST), and the parts of 1 MiB or more. */
export async function tableBytes(schema: string): Promise<{ total: number; parts: string }> {
  const client = new pg.Client({ connectionString: benchUrl });
  await client.connect();
  try {
    const found = await client.query<{ name: string; bytes: string }>(
      `select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
      [schema],
    );
    const total = found.rows.reduce((sum, row) => sum + Number(row.bytes), 0);
    const parts = found.rows
      .filter((row) => Number(row.bytes) >= 2 ** 20)
      .map((row) => `${row.name} ${(Number(row.bytes) / 2 ** 20).toFixed(0)} MiB`)
      .join(', ');
    return { total, parts };
  } finally {
    await client.end();
  }
}
