import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqlitePaperIndex } from '../../src/adapters/sqlite/sqlite-paper-index.js';
import { runPaperIndexContract } from './paper-index.contract.js';

runPaperIndexContract('SQLite FTS5', () =>
  createSqlitePaperIndex(join(mkdtempSync(join(tmpdir(), 'alexandria-index-')), 'index.db')),
);
