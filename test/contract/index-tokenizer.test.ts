import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { indexTokens } from '../../src/adapters/paper-index/index-tokenizer.js';
import { defaultTokenizer } from '../../src/adapters/sqlite/paper-index-migrations.js';
import { fixtures, needsSharedData, sharedData } from '../helpers/requirements.js';

/** Title, abstract and authors of each record of a JSONL corpus file (gzip or not), up to `limit`. */
function texts(path: string, limit: number): string[] {
  const bytes = readFileSync(path);
  const lines = (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8').split('\n');
  return lines
    .filter((line) => line.trim().length > 0)
    .slice(0, limit)
    .map((line) => {
      const record = JSON.parse(line) as { title?: string; abstract?: string; authors?: unknown[] };
      const authors = (record.authors ?? []).map((author) =>
        typeof author === 'string' ? author : String((author as { name?: string }).name ?? ''),
      );
      return `${record.title ?? ''} ${record.abstract ?? ''} ${authors.join('; ')}`;
    });
}

/** Tokens FTS5 indexes for `documents`, and how many of ours differ from them. */
function compareWithFts5(documents: string[]): { tokens: number; differing: number } {
  const db = new Database(':memory:');
  db.exec(
    `CREATE VIRTUAL TABLE t USING fts5(x, tokenize='${defaultTokenizer}'); CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);`,
  );
  const insert = db.prepare('INSERT INTO t (rowid, x) VALUES (?, ?)');
  db.transaction(() => {
    for (const [index, text] of documents.entries()) insert.run(index + 1, text);
  })();
  const byDocument = new Map<number, string[]>();
  for (const [doc, term] of db.prepare('SELECT doc, term FROM v ORDER BY doc, offset').raw().all() as Array<
    [number, string]
  >) {
    const list = byDocument.get(doc) ?? [];
    list.push(term);
    byDocument.set(doc, list);
  }
  let tokens = 0;
  let differing = 0;
  documents.forEach((text, index) => {
    const ours = indexTokens(text);
    const theirs = byDocument.get(index + 1) ?? [];
    tokens += theirs.length;
    if (ours.length !== theirs.length) differing += Math.abs(ours.length - theirs.length) + 1;
    else for (const [at, token] of ours.entries()) if (token !== theirs[at]) differing += 1;
  });
  db.close();
  return { tokens, differing };
}

describe("the index tokeniser (PostgreSQL's documents) against FTS5's own", () => {
  it('yields the tokens SQLite indexes, in order, on real abstracts (the ACL Anthology fixtures)', () => {
    const { tokens, differing } = compareWithFts5([
      ...texts(join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl'), 500),
      ...texts(join(fixtures, 'corpus', 'acl_anthology_records.jsonl'), 200),
    ]);
    // Measured: 121,952 tokens, none differing.
    expect(tokens).toBeGreaterThan(100_000);
    expect(differing / tokens).toBeLessThan(1e-4);
    // Stemming and folding at work, as FTS5 does them.
    expect(indexTokens('Translating Naïve Graphs, COVID-19')).toEqual([
      'translat',
      'naiv',
      'graph',
      'covid',
      '19',
    ]);
  });

  it.skipIf(needsSharedData('corpus/mlanthology_2024.jsonl.gz'))(
    'yields the tokens SQLite indexes on 3,000 ML Anthology abstracts (shared data)',
    () => {
      const { tokens, differing } = compareWithFts5(
        texts(join(sharedData, 'corpus', 'mlanthology_2024.jsonl.gz'), 3000),
      );
      expect(tokens).toBeGreaterThan(300_000);
      // Measured: a handful in millions (Turkish dotted capitals, a few symbols).
      expect(differing / tokens).toBeLessThan(1e-4);
    },
  );
});
