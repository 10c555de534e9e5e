import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Paper } from '../../src/domain/paper.js';
import { ingestFormats } from '../../src/ingest/formats/index.js';
import { decompressed, resolveInputs } from '../../src/ingest/ingest-inputs.js';
import type { IndexQuery } from '../../src/ports/paper-index.js';
import { parseSearchText } from '../../src/services/search-query.js';
import { fixtures, sharedData } from './requirements.js';

/**
 * Real records and real queries for tests that compare rankings between index adapters. The ACL
 * Anthology corpus travels with the code (test/fixtures/corpus, CC BY 4.0: 673 records, queries from
 * the first sentences of abstracts); SciFact (5,183 abstracts and their claims) is CC BY-NC and
 * stays in the shared data (`needsSharedData(sciFactCorpus.needs)` first).
 */
export interface RankingCorpus {
  name: string;
  /** What `needsSharedData` must find, if anything. */
  needs?: string;
  records(): Promise<Paper[]>;
  /** Broad queries, and word pairs of them as required keywords, on `search`. */
  queries(search: IndexQuery): IndexQuery[];
}

/** The records of a file in an ingest format, with citation counts and dates that tie often. */
async function recordsOf(formatName: string, path: string): Promise<Paper[]> {
  const format = ingestFormats.find((candidate) => candidate.name === formatName);
  const [file] = await resolveInputs(path, process.stdin);
  if (!format || !file) throw new Error(`no ${formatName} records at ${path}`);
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

/** Each text as a broad query, its first word as required and the rest as optional, its first two required. */
function queriesOf(texts: string[], search: IndexQuery): IndexQuery[] {
  const sorts = ['relevance', 'cited_by_count', 'publication_date'] as const;
  return texts.flatMap((text, index) => {
    const words = parseSearchText(text).words;
    const clause = (word: string) => ({ kind: 'term' as const, text: word });
    const sort = sorts[index % 3] as IndexQuery['sort'];
    const offset = index % 4 === 0 ? 15 : 0;
    return [
      { ...search, should: words.map(clause), sort, offset },
      { ...search, must: words.slice(0, 1).map(clause), should: words.slice(1).map(clause), sort },
      { ...search, must: words.slice(0, 2).map(clause), sort: sorts[(index + 1) % 3] as IndexQuery['sort'] },
    ] satisfies IndexQuery[];
  });
}

const aclFiles = ['acl_anthology_sample_500.jsonl', 'acl_anthology_records.jsonl'].map((name) =>
  join(fixtures, 'corpus', name),
);

/** The 673 ACL Anthology records of the fixtures; queries: first sentences of 40 of their abstracts. */
export const aclCorpus: RankingCorpus = {
  name: 'ACL Anthology records (fixtures)',
  async records() {
    return (await Promise.all(aclFiles.map((path) => recordsOf('jsonl', path)))).flat();
  },
  queries(search) {
    const abstracts = aclFiles
      .flatMap((path) => readFileSync(path, 'utf8').trim().split('\n'))
      .map((line) => (JSON.parse(line) as { abstract?: string | null }).abstract ?? '')
      .filter((abstract) => abstract.length > 0);
    const sentences = abstracts
      .filter((_, index) => index % 15 === 7)
      .slice(0, 40)
      .map((abstract) => abstract.split(/(?<=\.)\s/)[0] ?? abstract);
    return queriesOf(sentences, search);
  },
};

/** SciFact's corpus and 40 of its claims (shared data). */
export const sciFactCorpus: RankingCorpus = {
  name: 'SciFact (shared data)',
  needs: 'eval/scifact',
  records: () => recordsOf('beir', join(sharedData, 'eval', 'scifact', 'corpus.jsonl.gz')),
  queries(search) {
    const claims = readFileSync(join(sharedData, 'eval', 'scifact', 'queries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .slice(0, 40)
      .map((line) => (JSON.parse(line) as { text: string }).text);
    return queriesOf(claims, search);
  },
};
