import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSqlitePaperIndex,
  type SqlitePaperIndex,
} from '../../src/adapters/sqlite/sqlite-paper-index.js';
import type { Paper } from '../../src/domain/paper.js';
import type { OnlineRecords } from '../../src/services/references/online-records.js';
import { checkReferences } from '../../src/services/references/reference-check.js';
import { aclRecords } from '../helpers/acl-records.js';

/**
 * The check's use of the sources (decision 0032) on a real SQLite index of ACL records: the sources
 * are asked only for entries the index does not resolve, and not at all once the time for them has
 * run out (the report then says it is incomplete). The "sources" answer with the real ACL record of
 * Sentence-BERT, as a source holding it would.
 */

let folder: string;
let index: SqlitePaperIndex;
let sentenceBert: Paper;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'alexandria-check-online-'));
  index = await createSqlitePaperIndex(join(folder, 'index.db'), { mmapBytes: 0 });
  const records = aclRecords(new Set(['2020.acl-main.703', 'D19-1410']));
  const found = records.find((paper) => paper.identifiers?.acl === 'D19-1410');
  if (!found) throw new Error('Sentence-BERT is not in the ACL corpus');
  sentenceBert = found;
  // The index holds BART only; Sentence-BERT is known to the "sources".
  await index.upsert(records.filter((paper) => paper !== found));
}, 60_000);

afterAll(async () => {
  await index?.close();
  await rm(folder, { recursive: true, force: true });
});

function sources(): OnlineRecords & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async byIdentifier(identifier) {
      asked.push(`${identifier.type}:${identifier.value}`);
      return { paper: null, complete: true };
    },
    async searchTitle(title) {
      asked.push(`title:${title}`);
      return { papers: /sentence-bert/i.test(title) ? [sentenceBert] : [], complete: true };
    },
  };
}

const bib = `
@inproceedings{lewis2020bart,
  title = {{BART}: Denoising Sequence-to-Sequence Pre-training for Natural Language Generation, Translation, and Comprehension},
  author = {Lewis, Mike and Liu, Yinhan},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
}
@article{reimers2019,
  title = {Sentence-{BERT}: Sentence Embeddings using Siamese {BERT}-Networks},
  author = {Reimers, Nils and Gurevych, Iryna},
  journal = {arXiv preprint arXiv:1908.10084},
  year = {2019},
}
`;

describe('checkReferences with the sources', () => {
  it('asks the sources only for what the index does not resolve', async () => {
    const online = sources();
    const report = await checkReferences({ index, online }, bib);
    expect(report.results.map((result) => result.status)).toEqual(['exists', 'preprint_now_published']);
    expect(report.results[1]?.published?.identifiers?.acl).toBe('D19-1410');
    expect(report.complete).toBe(true);
    // BART was found in the index: only Sentence-BERT's arXiv id and title went to the sources.
    expect(online.asked).toEqual([
      'ARXIV:1908.10084',
      'title:Sentence-BERT: Sentence Embeddings using Siamese BERT-Networks',
    ]);
  });

  it('offline, or once the time for the sources is spent, answers from the index alone', async () => {
    const offline = await checkReferences(index, bib);
    expect(offline.results.map((result) => result.status)).toEqual(['exists', 'not_found']);
    expect(offline.complete).toBe(true);
    const online = sources();
    const late = await checkReferences({ index, online, onlineUntil: performance.now() - 1 }, bib);
    expect(late.results.map((result) => result.status)).toEqual(['exists', 'not_found']);
    expect(late.complete).toBe(false);
    expect(online.asked).toEqual([]);
  });
});
