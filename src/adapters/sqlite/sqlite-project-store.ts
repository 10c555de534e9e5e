import { Kysely, SqliteDialect } from 'kysely';
import type { ProjectStore } from '../../ports/project-store.js';
import { KyselyProjectStore } from '../sql/kysely-project-store.js';
import { migrateProjectStore } from '../sql/project-migrations.js';
import type { ProjectDatabase } from '../sql/schema.js';
import { openSqlite, withStatementCache } from './open-sqlite.js';

/** The embedded project store: one SQLite file, migrated on open. */
export async function createSqliteProjectStore(path: string): Promise<ProjectStore> {
  const database = openSqlite(path);
  const db = new Kysely<ProjectDatabase>({
    dialect: new SqliteDialect({ database: withStatementCache(database) }),
  });
  await migrateProjectStore(db as Kysely<unknown>);
  return new KyselyProjectStore(db, () => db.destroy());
}
