import type Database from 'better-sqlite3';

/** Tokenisers the index can be created with; chosen by measurement (docs/decisions/0010-search-tokeniser.md). */
export const defaultTokenizer = 'porter unicode61 remove_diacritics 2';

/**
 * Versioned schema of the index file, tracked in `PRAGMA user_version`. Each step runs once, in its
 * own immediate transaction, so a server and an ingest opening the same new file at once cannot both
 * apply it. Never edit a released step: add the next one.
 *
 * - `papers`: narrow rows (kind, year, date, citations, reviewed) that filters and sorts read, and
 *   where the record lives (`block`, `slot`);
 * - `record_blocks`: records as compressed blocks of JSON lines (see paper-record-blocks.ts), ids
 *   never reused so a cached block can never be stale;
 * - `paper_keys`: 48-bit hashes of identity keys → paper (hash collisions are checked on read);
 * - `papers_fts`: contentless FTS5 (the text lives once, in `paper_records`), with delete support, and
 *   a `facets` column of filter tokens (kind, year, reviewed) so filters run inside MATCH;
 * - `facet_counts`: how many records carry each facet token (kind, year, reviewed): filters expand
 *   to the years that exist and are written on their cheaper side (see fts-expression.ts).
 */
const steps: Array<(db: Database.Database, options: { tokenizer: string }) => void> = [
  (db, { tokenizer }) => {
    db.exec(`
      CREATE TABLE papers (
        id INTEGER PRIMARY KEY,
        kind INTEGER NOT NULL,
        year INTEGER,
        published TEXT,
        cited_by_count INTEGER,
        reviewed INTEGER NOT NULL,
        block INTEGER NOT NULL,
        slot INTEGER NOT NULL
      );
      CREATE TABLE record_blocks (id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, live INTEGER NOT NULL);
      CREATE TABLE paper_keys (
        hash INTEGER NOT NULL,
        paper_id INTEGER NOT NULL,
        PRIMARY KEY (hash, paper_id)
      ) WITHOUT ROWID;
      CREATE TABLE facet_counts (token TEXT PRIMARY KEY, records INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE index_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `);
    db.prepare(
      `CREATE VIRTUAL TABLE papers_fts USING fts5(
        title, abstract, authors, venue, extra, facets,
        content='', contentless_delete=1, tokenize='${tokenizer.replace(/'/g, '')}'
      )`,
    ).run();
    db.prepare('INSERT INTO index_settings (name, value) VALUES (?, ?)').run('tokenizer', tokenizer);
  },
];

/** Brings the file to the latest schema version; returns the tokenizer the index was built with. */
export function migratePaperIndex(db: Database.Database, options: { tokenizer: string }): string {
  for (;;) {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version >= steps.length) break;
    db.transaction(() => {
      // Re-read inside the write lock: another process may have migrated meanwhile.
      const current = db.pragma('user_version', { simple: true }) as number;
      const step = steps[current];
      if (current !== version || !step) return;
      step(db, options);
      db.pragma(`user_version = ${current + 1}`);
    }).immediate();
  }
  const row = db.prepare("SELECT value FROM index_settings WHERE name = 'tokenizer'").get() as
    | { value: string }
    | undefined;
  return row?.value ?? options.tokenizer;
}
