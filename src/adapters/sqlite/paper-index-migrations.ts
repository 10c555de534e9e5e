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
 *   to the years that exist and are written on their cheaper side (see fts-expression.ts);
 * - `papers_fts_1` …: further full-text shards of a new file, searched in parallel (step 2);
 * - `record_vectors`: each record's vector per embedding model (`vector_models` numbers the models),
 *   int8 with a scale (see record-vector-codec.ts), for hybrid search (step 3, decision 0036).
 */
const steps: Array<(db: Database.Database, options: PaperIndexCreation) => void> = [
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
    createFtsTable(db, ftsTable(0), tokenizer);
    db.prepare('INSERT INTO index_settings (name, value) VALUES (?, ?)').run('tokenizer', tokenizer);
  },
  // Shards: a new (empty) file gets `shards` full-text tables, record `id` living in shard
  // ⌊(id − 1) / shardBlock⌋ mod shards; a file that already holds records keeps its one table.
  (db, { shards, shardBlock }) => {
    const empty = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM papers)').pluck().get() === 1;
    const count = empty ? Math.max(1, Math.floor(shards)) : 1;
    const tokenizer = setting(db, 'tokenizer') ?? defaultTokenizer;
    for (let shard = 1; shard < count; shard += 1) createFtsTable(db, ftsTable(shard), tokenizer);
    const put = db.prepare('INSERT OR REPLACE INTO index_settings (name, value) VALUES (?, ?)');
    put.run('fts_shards', String(count));
    put.run('fts_shard_block', String(Math.max(1, Math.floor(shardBlock))));
  },
  (db) => {
    db.exec(`
      CREATE TABLE IF NOT EXISTS vector_models (code INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
      CREATE TABLE IF NOT EXISTS record_vectors (
        id INTEGER NOT NULL,
        model INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (id, model)
      ) WITHOUT ROWID;
    `);
  },
];

/** The full-text table of shard `shard` (shard 0 keeps the original name). */
export function ftsTable(shard: number): string {
  return shard === 0 ? 'papers_fts' : `papers_fts_${shard}`;
}

function createFtsTable(db: Database.Database, name: string, tokenizer: string): void {
  db.prepare(
    `CREATE VIRTUAL TABLE ${name} USING fts5(
      title, abstract, authors, venue, extra, facets,
      content='', contentless_delete=1, tokenize='${tokenizer.replace(/'/g, '')}'
    )`,
  ).run();
}

function setting(db: Database.Database, name: string): string | undefined {
  const row = db.prepare('SELECT value FROM index_settings WHERE name = ?').get(name) as
    | { value: string }
    | undefined;
  return row?.value;
}

/** How the file's records are spread over full-text tables (fixed when the file is created). */
export interface ShardLayout {
  shards: number;
  shardBlock: number;
}

/** The file's shard layout (one table for files made before shards existed). */
export function readShardLayout(db: Database.Database): ShardLayout {
  return {
    shards: Math.max(1, Number(setting(db, 'fts_shards') ?? 1)),
    shardBlock: Math.max(1, Number(setting(db, 'fts_shard_block') ?? 1000)),
  };
}

/** Creation-time choices (ignored for a file that exists): tokenizer and shard layout. */
export interface PaperIndexCreation extends ShardLayout {
  tokenizer: string;
}

/** Brings the file to the latest schema version; returns the tokenizer the index was built with. */
export function migratePaperIndex(db: Database.Database, options: PaperIndexCreation): string {
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
  return setting(db, 'tokenizer') ?? options.tokenizer;
}
