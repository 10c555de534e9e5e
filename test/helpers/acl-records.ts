import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { fixtures } from './requirements.js';

interface CorpusRow {
  id: string;
  title: string;
  authors: string[];
  year: number;
  venue: string;
  doi: string | null;
}

/**
 * The ACL Anthology records with these ACL ids, as index records: from the records of the
 * 2016–2022 corpus that the tests use (test/fixtures/corpus/acl_anthology_records.jsonl).
 */
export function aclRecords(ids: ReadonlySet<string>): Paper[] {
  const text = readFileSync(join(fixtures, 'corpus', 'acl_anthology_records.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => ids.has(/"id": "([^"]+)"/.exec(line)?.[1] ?? ''))
    .map((line) => {
      const row = JSON.parse(line) as CorpusRow;
      return {
        ...emptyPaper(row.title),
        authors: row.authors,
        year: row.year,
        publication_date: String(row.year),
        venue: row.venue,
        doi: row.doi,
        identifiers: { acl: row.id, doi: row.doi },
      };
    });
}
