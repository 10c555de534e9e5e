import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import { runPaperIndexContract } from './paper-index.contract.js';

const freshPath = () => join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db');

runPaperIndexContract('SQLite FTS5', () => createSqlitePaperIndex(freshPath()));
runPaperIndexContract('SQLite FTS5, searches on a worker thread', () =>
  createSqlitePaperIndex(freshPath(), { searchThreads: 1 }),
);
