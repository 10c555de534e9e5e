import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { indexTokens } from '../../src/adapters/paper-index/index-tokenizer.js';
import { defaultTokenizer } from '../../src/adapters/sqlite/paper-index-migrations.js';

const corpus = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'shared',
  'data',
  'corpus',
  'mlanthology_2024.jsonl.gz',
);

async function texts(limit: number): Promise<string[]> {
  const lines = createInterface({ input: createReadStream(corpus).pipe(createGunzip()) });
  const found: string[] = [];
  for await (const line of lines) {
    const record = JSON.parse(line) as { title?: string; abstract?: string; authors?: unknown[] };
    const authors = (record.authors ?? []).map((author) =>
      typeof author === 'string' ? author : String((author as { name?: string }).name ?? ''),
    );
    found.push(`${record.title ?? ''} ${record.abstract ?? ''} ${authors.join('; ')}`);
    if (found.length >= limit) break;
  }
  lines.close();
  return found;
}

describe("the index tokeniser (PostgreSQL's documents) against FTS5's own", () => {
  it('yields the tokens SQLite indexes, in order, on real abstracts', async () => {
    const documents = await texts(3000);
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
    expect(tokens).toBeGreaterThan(300_000);
    // Measured: a handful in millions (Turkish dotted capitals, a few symbols).
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
});
