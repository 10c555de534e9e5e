import { Kysely, sql } from 'kysely';
import type { ProjectStore } from '../../ports/project-store.js';
import type { ContentLock } from '../sql/kysely-document-rows.js';
import { KyselyProjectStore } from '../sql/kysely-project-store.js';
import { migrateProjectStore } from '../sql/project-migrations.js';
import type { ProjectDatabase } from '../sql/schema.js';
import {
  type ConnectionErrorSummary,
  createPostgresPool,
  type PostgresPoolHealth,
  type PostgresPoolSettings,
} from './postgres-pool.js';
import { OwnSchemaPostgresDialect } from './schema-introspector.js';

/**
 * The project store on PostgreSQL (scale-out): the same queries as SQLite through Kysely. `schema`
 * selects a PostgreSQL schema (created if absent), which lets tests run in isolation.
 */
export async function createPostgresProjectStore(
  connectionString: string,
  options: {
    schema?: string;
    maxConnections?: number;
    /** Timeouts and size of the pool (ALEXANDRIA_DATABASE_*); `maxConnections` wins for the size. */
    pool?: PostgresPoolSettings;
    /** Told of an error on an idle pooled connection (dropped by the pool; see the paper index's). */
    onConnectionError?: (error: ConnectionErrorSummary) => void;
    /** Told of outages and reconnections (dependency health). */
    health?: PostgresPoolHealth;
  } = {},
): Promise<ProjectStore> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid schema name ${schema}`);
  }
  // A connection the server ends (restart, failover) is dropped by the pool, never fatal.
  const pool = createPostgresPool(
    connectionString,
    {
      ...options.pool,
      maxConnections: options.maxConnections ?? options.pool?.maxConnections,
      serverOptions: schema ? `-c search_path=${schema}` : undefined,
    },
    options.onConnectionError,
    options.health,
  );
  if (schema) await pool.query(`create schema if not exists ${schema}`);
  const db = new Kysely<ProjectDatabase>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
  await migrateProjectStore(db as Kysely<unknown>, schema ? { schema } : {});
  return new KyselyProjectStore(db, () => db.destroy(), lockContent);
}

/**
 * A transaction-level advisory lock per content hash (and schema): document-row writes and
 * release marks of one hash wait for each other, other hashes never do.
 */
const lockContent: ContentLock = async (trx, sha256) => {
  await sql`select pg_advisory_xact_lock(hashtextextended(current_schema() || '.content.' || ${sha256}, 0))`.execute(
    trx,
  );
};
