import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { needsSharedData } from '../../../test/helpers/requirements.js';
import { readAlexandriaJsonl } from './alexandria-jsonl.js';
import { readBeirJsonl } from './beir-jsonl.js';
import { textInput } from './lines.js';
import { fileInput, papersOf, readAll, sharedData, testFixtures } from './test-support.js';

/** The first record of the ACL Anthology corpus (and so of its 500-record sample). */
const doTat = {
  title: 'DoTAT: A Domain-oriented Text Annotation Tool',
  authors: ['Yupian Lin', 'Tong Ruan', 'Ming Liang', 'Tingting Cai', 'Wen Du', 'Yi Wang'],
  year: 2022,
  publication_date: '2022',
  venue:
    'Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics: System Demonstrations',
  type: 'conference-paper',
  url: 'https://aclanthology.org/2022.acl-demo.1',
  pdf_url: 'https://aclanthology.org/2022.acl-demo.1.pdf',
  pdf_id: 'PDF_URL:https://aclanthology.org/2022.acl-demo.1.pdf',
  identifiers: { acl: '2022.acl-demo.1' },
  doi: null,
  source: 'jsonl',
};

describe('our own JSONL', () => {
  it('reads every record of the ACL Anthology sample with its ids, venue, type and PDF', async () => {
    const items = await readAll(
      readAlexandriaJsonl,
      fileInput(join(testFixtures, 'corpus/acl_anthology_sample_500.jsonl')),
    );
    const papers = papersOf(items);
    expect(papers).toHaveLength(500);
    expect(papers[0]).toMatchObject(doTat);
    expect(papers[0]?.abstract).toMatch(/^We propose DoTAT, a domain-oriented text annotation tool\./);
    expect(new Set(papers.map((paper) => paper.identifiers?.acl)).size).toBe(500);
  });

  it.skipIf(needsSharedData('corpus/acl_anthology_2016_2022.jsonl.gz'))(
    'reads every record of the whole ACL Anthology corpus, DOIs checked',
    async () => {
      const items = await readAll(
        readAlexandriaJsonl,
        fileInput(join(sharedData, 'corpus/acl_anthology_2016_2022.jsonl.gz')),
      );
      const papers = papersOf(items);
      expect(papers).toHaveLength(27_119);
      expect(papers[0]).toMatchObject(doTat);
      expect(papers[0]?.abstract).toMatch(/^We propose DoTAT, a domain-oriented text annotation tool\./);
      const withDoi = papers.filter((paper) => paper.doi !== null);
      // 17,066 records carry a DOI; 6 of them are broken in the source ('10.1162/', '0.26615/…') and dropped.
      expect(withDoi.length).toBe(17_060);
      expect(
        withDoi.every((paper) => paper.doi === paper.identifiers?.doi && paper.doi?.startsWith('10.')),
      ).toBe(true);
      const tacl = papers.find((paper) => paper.identifiers?.acl?.startsWith('2021.tacl-'));
      expect(tacl?.type).toBe('journal-article');
    },
  );

  it.skipIf(needsSharedData('corpus/mlanthology_2024.jsonl.gz'))(
    'reads the ML Anthology corpus (OpenReview, PMLR and JMLR records)',
    async () => {
      const papers = papersOf(
        await readAll(readAlexandriaJsonl, fileInput(join(sharedData, 'corpus/mlanthology_2024.jsonl.gz'))),
      );
      expect(papers).toHaveLength(5308);
      expect(papers[0]).toMatchObject({
        title: 'TabR: Tabular Deep Learning Meets Nearest Neighbors',
        authors: expect.arrayContaining(['Yury Gorishniy', 'Artem Babenko']),
        year: 2024,
        venue: 'ICLR',
        type: 'conference-paper',
        url: 'https://openreview.net/forum?id=rhgIgTSSxW',
        pdf_id: 'PDF_URL:https://openreview.net/pdf/178e173a880d7872c0a79d88e005426c20501329.pdf',
      });
      // Abstract line breaks are collapsed to single spaces.
      expect(papers[0]?.abstract).toContain('attention from researchers. However, despite');
      expect(papers.find((paper) => paper.venue === 'JMLR')?.type).toBe('journal-article');
    },
  );

  it('rejects malformed lines and records without a title, with their line numbers', async () => {
    const input = textInput(
      '{"id": "a", "title": "Good paper", "year": 2020, "doi": "https://doi.org/10.1000/ABC"}\n',
      '{"id": "b", "title": \n',
      '{"id": "c", "abstract": "no title"}\n',
      '[1, 2]\n',
    );
    const items = await readAll(readAlexandriaJsonl, input);
    expect(items.map((item) => (item.ok ? item.paper.doi : item.reason))).toEqual([
      '10.1000/abc',
      expect.stringMatching(/^invalid JSON/),
      'record has no title',
      'record is not a JSON object',
    ]);
    expect(items.map((item) => item.location)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
  });
});

describe('BEIR corpus', () => {
  it('reads records with the corpus id kept for qrels', async () => {
    const items = await readAll(
      readBeirJsonl,
      textInput(
        '{"_id": "4983", "title": "Growth of river deltas.", "text": "Deltas grow where rivers slow down.", "metadata": {}}\n',
        '{"_id": "5836", "title": "", "text": "Only a text here."}\n',
      ),
    );
    expect(papersOf(items)).toMatchObject([
      {
        title: 'Growth of river deltas.',
        abstract: 'Deltas grow where rivers slow down.',
        identifiers: { corpus_id: '4983' },
        source: 'beir',
      },
      { identifiers: { corpus_id: '5836' }, abstract: 'Only a text here.' },
    ]);
  });

  // SciFact is CC BY-NC: it stays in the shared data, not in the repository (decision 0043).
  it.skipIf(needsSharedData('eval/scifact/corpus.jsonl.gz'))(
    'reads SciFact with the corpus id kept for qrels',
    async () => {
      const papers = papersOf(
        await readAll(readBeirJsonl, fileInput(join(sharedData, 'eval/scifact/corpus.jsonl.gz'))),
      );
      expect(papers).toHaveLength(5183);
      expect(papers[0]).toMatchObject({
        title:
          'Microstructural development of human newborn cerebral white matter assessed in vivo by diffusion tensor magnetic resonance imaging.',
        identifiers: { corpus_id: '4983' },
        source: 'beir',
      });
      expect(papers[0]?.abstract).toMatch(/^Alterations of the architecture of cerebral white matter/);
    },
  );

  it('rejects records without _id or without any text', async () => {
    const items = await readAll(
      readBeirJsonl,
      textInput('{"title": "x", "text": "y"}\n{"_id": "7", "title": "", "text": ""}\n'),
    );
    expect(items).toEqual([
      { ok: false, reason: 'BEIR record has no _id', location: 'line 1' },
      { ok: false, reason: 'BEIR record 7 has neither title nor text', location: 'line 2' },
    ]);
  });
});
