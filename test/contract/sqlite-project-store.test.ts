import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import { runOthersMigrationCase, runProjectStoreContract } from './project-store.contract.js';

runProjectStoreContract('SQLite', () =>
  createSqliteProjectStore(join(mkdtempSync(join(tmpdir(), 'alexandria-store-')), 'alexandria.db')),
);

runOthersMigrationCase('SQLite', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'alexandria-store-')), 'alexandria.db');
  return {
    open: () => createSqliteProjectStore(path),
    forget: async (migration) => {
      const raw = new Database(path);
      raw.prepare('DELETE FROM project_store_migrations WHERE name = ?').run(migration);
      raw.close();
    },
  };
});
