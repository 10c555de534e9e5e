import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import { runProjectStoreContract } from './project-store.contract.js';

runProjectStoreContract('SQLite', () =>
  createSqliteProjectStore(join(mkdtempSync(join(tmpdir(), 'alexandria-store-')), 'alexandria.db')),
);
