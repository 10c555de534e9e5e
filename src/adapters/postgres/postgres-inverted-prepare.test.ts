import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtures } from '../../../test/helpers/requirements.js';
import { emptyPaper, type Paper } from '../../domain/paper.js';
import { indexedText } from '../paper-index/index-fields.js';
import { recordJson } from '../sqlite/paper-record-codec.js';
import { documentWords, invertedDocument } from './postgres-inverted-codec.js';
import { deflated, documentOf, RecordPreparer } from './postgres-inverted-prepare.js';

const sample = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');

/** Real records, and a few with non-ASCII text, an over-long word and no title. */
function records(): Paper[] {
  const rows = readFileSync(sample, 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map(
      (line) => JSON.parse(line) as { title: string; abstract?: string; authors?: string[]; venue?: string },
    );
  const papers = rows.map(
    (row): Paper => ({
      ...emptyPaper(row.title),
      abstract: row.abstract ?? null,
      authors: row.authors ?? [],
      venue: row.venue ?? null,
    }),
  );
  papers.push({ ...emptyPaper('Über Çağrı’s naïve façade: déjà vu in İstanbul'), authors: ['Zoë Ångström'] });
  papers.push({ ...emptyPaper(`A ${'x'.repeat(3000)} word`), abstract: 'the the the the a b c' });
  papers.push({ ...emptyPaper(''), abstract: 'no title here' });
  return papers;
}

const preparers: RecordPreparer[] = [];
afterAll(async () => {
  for (const preparer of preparers) await preparer.close();
});

describe('preparing records for the inverted layout', () => {
  it('a compact document lists each word once with its field frequencies and ascending positions', () => {
    const document = invertedDocument({
      title: 'Parsing parsers',
      abstract: 'We parse text',
      authors: 'Ada',
      venue: '',
      extra: '',
    });
    // Tokens: pars(1) parser(2) | we(4) pars(5) text(6) | ada(8); 6 tokens + 3 facet tokens.
    expect(document.length).toBe(9);
    expect(documentWords(document)).toEqual(['pars', 'parser', 'we', 'text', 'ada']);
    const of = (word: string) => {
      const i = documentWords(document).indexOf(word);
      return [...document.occurrences.subarray(document.starts[i], document.starts[i + 1])];
    };
    expect(of('pars')).toEqual([1, 1, 0, 1, 5]);
    expect(of('ada')).toEqual([0, 0, 1, 8]);
  });

  it('the preparing thread yields the documents and deflated records the calling thread computes', async () => {
    const papers = records();
    const preparer = new RecordPreparer({ threads: 1 });
    preparers.push(preparer);
    await preparer.prepare(papers);
    expect(preparer.tasksRun).toBeGreaterThan(0);
    for (const paper of papers) {
      const expected = invertedDocument(indexedText(paper));
      const prepared = documentOf(paper);
      expect(prepared.length).toBe(expected.length);
      expect(documentWords(prepared)).toEqual(documentWords(expected));
      expect([...prepared.starts]).toEqual([...expected.starts]);
      expect([...prepared.occurrences]).toEqual([...expected.occurrences]);
      const json = recordJson(paper);
      expect(inflateRawSync(deflated(paper, json)).toString('utf8')).toBe(json);
    }
  });

  it('small batches and a preparer without a thread prepare on the calling thread', async () => {
    const papers = records().slice(0, 100);
    const inline = new RecordPreparer({ threads: 0 });
    preparers.push(inline);
    await inline.prepare(papers);
    expect(inline.tasksRun).toBe(0);
    const threaded = new RecordPreparer({ threads: 1 });
    preparers.push(threaded);
    await threaded.prepare(records().slice(0, 10));
    expect(threaded.tasksRun).toBe(0);
    for (const paper of papers) {
      expect(documentWords(documentOf(paper))).toEqual(documentWords(invertedDocument(indexedText(paper))));
    }
  });
});
