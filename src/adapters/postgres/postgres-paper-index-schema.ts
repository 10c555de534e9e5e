import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from './transaction.js';

/**
 * The PostgreSQL index's tables (docs/decisions/0024). Versioned steps, applied under an advisory
 * lock so replicas starting together migrate once. The `alexandria_pg` extension (BM25) must be
 * installed on the server (native/postgres, `npm run build` installs it where it may).
 */
const steps: string[] = [
  `CREATE TABLE paper_index_settings (name text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE paper_index_stats (
     one boolean PRIMARY KEY DEFAULT true CHECK (one),
     data_version bigint NOT NULL DEFAULT 0,
     records bigint NOT NULL DEFAULT 0,
     tokens bigint NOT NULL DEFAULT 0,
     next_id bigint NOT NULL DEFAULT 1);
   INSERT INTO paper_index_stats DEFAULT VALUES;
   CREATE TABLE paper_records (
     id bigint PRIMARY KEY,
     kind int2 NOT NULL,
     year int4,
     published text,
     cited_by_count int8,
     reviewed boolean NOT NULL,
     doclen int4 NOT NULL,
     terms tsvector NOT NULL,
     record bytea NOT NULL);
   -- Scoring reads every candidate's tsvector: keep it inline, compressed with lz4 (cheap to
   -- inflate); the record (already deflated) goes out of line, read only for a page's rows.
   ALTER TABLE paper_records ALTER COLUMN terms SET STORAGE MAIN;
   ALTER TABLE paper_records ALTER COLUMN terms SET COMPRESSION lz4;
   ALTER TABLE paper_records ALTER COLUMN record SET STORAGE EXTERNAL;
   ALTER TABLE paper_records SET (toast_tuple_target = 256);
   CREATE INDEX paper_records_terms ON paper_records USING gin (terms);
   CREATE TABLE paper_keys (hash int8 NOT NULL, paper_id int8 NOT NULL, PRIMARY KEY (hash, paper_id));
   CREATE TABLE paper_terms (lexeme text PRIMARY KEY, records int4 NOT NULL);`,
  // Record vectors per embedding model (decision 0036): int8 with a scale (record-vector-codec.ts);
  // a record's row deleted (folded into another) takes its vectors with it.
  `CREATE TABLE paper_record_vectors (
     id bigint NOT NULL REFERENCES paper_records (id) ON DELETE CASCADE,
     model text NOT NULL,
     vector bytea NOT NULL,
     PRIMARY KEY (id, model));
   ALTER TABLE paper_record_vectors ALTER COLUMN vector SET STORAGE PLAIN;`,
];

export async function migratePostgresPaperIndex(pool: pg.Pool, schema: string | undefined): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('alexandria.paper_index.migrate'))");
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const installed = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'alexandria_pg'");
    if (installed.rowCount === 0) {
      const available = await client.query(
        "SELECT 1 FROM pg_available_extensions WHERE name = 'alexandria_pg'",
      );
      if (available.rowCount === 0) {
        throw new Error(
          'The PostgreSQL paper index needs the alexandria_pg extension on the database server: build and install it from native/postgres (`npm run build` as root on that machine, with postgresql-server-dev-15), see README "Scaling out"',
        );
      }
      await client.query('CREATE EXTENSION IF NOT EXISTS alexandria_pg SCHEMA public');
    }
    const exists = await client.query("SELECT to_regclass('paper_index_settings') IS NOT NULL AS found");
    let version = 0;
    if (exists.rows[0]?.found) {
      const found = await client.query<{ value: string }>(
        "SELECT value FROM paper_index_settings WHERE name = 'schema_version'",
      );
      version = Number(found.rows[0]?.value ?? 0);
    }
    for (let step = version; step < steps.length; step += 1) await client.query(steps[step] as string);
    if (version < steps.length) {
      await client.query(
        `INSERT INTO paper_index_settings (name, value) VALUES ('schema_version', $1), ('index_id', $2)
         ON CONFLICT (name) DO UPDATE SET value = CASE WHEN paper_index_settings.name = 'schema_version'
           THEN excluded.value ELSE paper_index_settings.value END`,
        [String(steps.length), randomUUID()],
      );
    }
  });
}
