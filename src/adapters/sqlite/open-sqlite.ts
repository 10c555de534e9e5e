import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Opens a SQLite file with the settings every embedded adapter relies on: WAL (readers never block
 * the writer, so `alexandria ingest` can run beside the server), foreign keys on, a busy timeout for
 * the second writer, and NORMAL sync (durable at each WAL checkpoint; safe against process crashes).
 */
export function openSqlite(path: string, options: { readonly?: boolean } = {}): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false });
  if (!options.readonly) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * The database as Kysely's SQLite dialect sees it, with prepared statements reused by SQL text:
 * Kysely prepares every query afresh, which costs more than running a small one.
 */
export function withStatementCache(db: Database.Database, maxStatements = 500) {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= maxStatements) statements.clear();
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
