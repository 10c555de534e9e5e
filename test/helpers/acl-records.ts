import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { sharedData } from './test-app.js';

interface CorpusRow {
  id: string;
  title: string;
  authors: string[];
  year: number;
  venue: string;
  doi: string | null;
}

/** The ACL Anthology records (2016–2022 corpus) with these ACL ids, as index records. */
export function aclRecords(ids: ReadonlySet<string>): Paper[] {
  const text = gunzipSync(
    readFileSync(join(sharedData, 'corpus', 'acl_anthology_2016_2022.jsonl.gz')),
  ).toString('utf8');
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
