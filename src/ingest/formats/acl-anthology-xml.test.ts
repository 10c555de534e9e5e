import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAclId, readAclAnthologyXml } from './acl-anthology-xml.js';
import { readAlexandriaJsonl } from './alexandria-jsonl.js';
import { fileInput, fixtures, papersOf, readAll, testFixtures } from './test-support.js';

describe('ACL Anthology XML', () => {
  it('builds ACL ids in both styles', () => {
    expect(buildAclId('2022.acl', 'long', '12')).toBe('2022.acl-long.12');
    expect(buildAclId('P19', '1', '1')).toBe('P19-1001');
    expect(buildAclId('W19', '32', '5')).toBe('W19-3205');
    expect(buildAclId('', '1', '1')).toBeNull();
  });

  it('flattens inline markup and reads the same values as the converted corpus', async () => {
    const items = await readAll(readAclAnthologyXml, fileInput(join(fixtures, 'acl-anthology-2022.acl.xml')));
    const papers = papersOf(items, false);
    const corpus = papersOf(
      await readAll(
        readAlexandriaJsonl,
        fileInput(join(testFixtures, 'corpus/acl_anthology_sample_500.jsonl')),
      ),
    );
    for (const paper of papers) {
      const converted = corpus.find((record) => record.identifiers?.acl === paper.identifiers?.acl);
      expect(converted, paper.identifiers?.acl ?? '').toBeDefined();
      for (const field of [
        'title',
        'authors',
        'abstract',
        'venue',
        'year',
        'url',
        'pdf_id',
        'type',
      ] as const) {
        expect(paper[field], field).toEqual(converted?.[field]);
      }
    }
    expect(papers.map((paper) => paper.identifiers?.acl)).toEqual(['2022.acl-demo.1', '2022.acl-demo.2']);
    expect(papers[0]).toMatchObject({
      title: 'DoTAT: A Domain-oriented Text Annotation Tool',
      publication_date: '2022-05',
      source: 'acl-xml',
    });
    expect(papers[1]?.authors).toContain('Gözde Şahin');
    expect(items[2]).toMatchObject({
      ok: false,
      reason: '2022.acl-demo.3: record has no title',
      location: expect.stringMatching(/^record 4 \(byte \d+\)$/),
    });
  });

  it('builds old-style ids and keeps the DOI', async () => {
    const [paper] = papersOf(
      await readAll(readAclAnthologyXml, fileInput(join(fixtures, 'acl-anthology-P19.xml'))),
    );
    expect(paper).toMatchObject({
      identifiers: { acl: 'P19-1001', doi: '10.18653/v1/p19-1001' },
      url: 'https://aclanthology.org/P19-1001',
      pdf_id: 'PDF_URL:https://aclanthology.org/P19-1001.pdf',
      publication_date: '2019-07',
      venue: 'Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics',
      type: 'conference-paper',
      authors: ['Chongyang Tao', 'Wei Wu', 'Can Xu', 'Wenpeng Hu', 'Dongyan Zhao', 'Rui Yan'],
    });
  });
});
