import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Paper } from '../../src/domain/paper.js';
import { ingestFormats } from '../../src/ingest/formats/index.js';
import { decompressed, resolveInputs } from '../../src/ingest/ingest-inputs.js';
import type { IndexQuery } from '../../src/ports/paper-index.js';
import { parseSearchText } from '../../src/services/search-query.js';

/** The SciFact corpus and claims, for tests that compare rankings between index adapters. */
const sharedData = join(import.meta.dirname, '..', '..', '..', 'shared', 'data');

export async function sciFactRecords(): Promise<Paper[]> {
  const format = ingestFormats.find((candidate) => candidate.name === 'beir');
  const [file] = await resolveInputs(join(sharedData, 'eval', 'scifact', 'corpus.jsonl.gz'), process.stdin);
  if (!format || !file) throw new Error('no SciFact corpus');
  const papers: Paper[] = [];
  for await (const item of format.read(decompressed(file).chunks)) {
    if (!item.ok) continue;
    // Citation counts and dates with many ties and some unknown, so that sorts need the score too.
    const n = papers.length;
    const year = 2000 + (n % 23);
    papers.push({
      ...item.paper,
      cited_by_count: n % 11 === 0 ? null : n % 40,
      year: n % 13 === 0 ? null : year,
      publication_date:
        n % 13 === 0 ? null : n % 3 === 0 ? String(year) : `${year}-0${1 + (n % 9)}-1${n % 10}`,
    });
  }
  return papers;
}

/** Real SciFact claims as broad queries, and word pairs of them as required keywords. */
export function sciFactQueries(search: IndexQuery): IndexQuery[] {
  const claims = readFileSync(join(sharedData, 'eval', 'scifact', 'queries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(0, 40)
    .map((line) => (JSON.parse(line) as { text: string }).text);
  const sorts = ['relevance', 'cited_by_count', 'publication_date'] as const;
  return claims.flatMap((claim, index) => {
    const words = parseSearchText(claim).words;
    const clause = (text: string) => ({ kind: 'term' as const, text });
    const sort = sorts[index % 3] as IndexQuery['sort'];
    const offset = index % 4 === 0 ? 15 : 0;
    return [
      { ...search, should: words.map(clause), sort, offset },
      { ...search, must: words.slice(0, 1).map(clause), should: words.slice(1).map(clause), sort },
      { ...search, must: words.slice(0, 2).map(clause), sort: sorts[(index + 1) % 3] as IndexQuery['sort'] },
    ] satisfies IndexQuery[];
  });
}
