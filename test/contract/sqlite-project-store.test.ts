import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import { emptyPaper } from '../../src/domain/paper.js';
import { runProjectStoreContract } from './project-store.contract.js';

runProjectStoreContract('SQLite', () =>
  createSqliteProjectStore(join(mkdtempSync(join(tmpdir(), 'alexandria-store-')), 'alexandria.db')),
);

it('migration 0005 turns an author named "others" from an older import into "et al." (0049)', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'alexandria-store-')), 'alexandria.db');
  const store = await createSqliteProjectStore(path);
  await store.ensureTenant('t1');
  await store.createProject('t1', { id: 'p1', name: 'Old import' });
  const paper = { ...emptyPaper('S2ORC'), authors: ['Kyle Lo', 'Daniel Weld', 'others'], year: 2020 };
  await store.addEntry('t1', 'p1', { entryId: 'e1', paper, document: null, identityKeys: [] });
  const plain = { ...emptyPaper('Others in the title'), authors: ['Ada Lovelace'] };
  await store.addEntry('t1', 'p1', { entryId: 'e2', paper: plain, document: null, identityKeys: [] });
  await store.close();
  // As a release before 0049 left the database: the row as it was, the migration not yet run.
  const raw = new Database(path);
  raw.prepare("DELETE FROM project_store_migrations WHERE name = '0005_others_is_et_al'").run();
  raw.close();
  const reopened = await createSqliteProjectStore(path);
  const entries = await reopened.listEntries('t1', 'p1');
  expect(entries.map((entry) => entry.paper.authors)).toEqual([['Kyle Lo', 'Daniel Weld'], ['Ada Lovelace']]);
  expect(entries[0]?.paper.bibliographic?.more_authors).toBe(true);
  expect(entries[1]?.paper.bibliographic).toBeUndefined();
  await reopened.close();
});
