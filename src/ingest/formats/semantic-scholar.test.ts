import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { readSemanticScholar } from './semantic-scholar.js';
import { fileInput, fixtures, papersOf, readAll, recordedBodies, testFixtures } from './test-support.js';

describe('Semantic Scholar', () => {
  it('reads a recorded Graph API paper with its ids and open-access PDF', async () => {
    const [body] = recordedBodies('semantic_scholar', /paper\/DOI:10.1038\/s42256-024-00832-8/);
    const [paper] = papersOf(await readAll(readSemanticScholar, textInput(body ?? '')));
    expect(paper).toMatchObject({
      title: 'Augmenting large language models with chemistry tools',
      authors: [
        'Andrés M Bran',
        'Sam Cox',
        'Oliver Schilter',
        'Carlo Baldassari',
        'Andrew D. White',
        'P. Schwaller',
      ],
      ss_id: '354dcdebf3f8b5feeed5c62090e0bc1f0c28db06',
      doi: '10.1038/s42256-024-00832-8',
      year: 2023,
      publication_date: '2023-04-11',
      type: 'journal-article',
      cited_by_count: 500,
      pdf_id: 'PDF_URL:https://www.nature.com/articles/s42256-024-00832-8.pdf',
      identifiers: { arxiv: '2304.05376', pmid: '38799228', pmcid: 'PMC11116106', corpus_id: '258059792' },
    });
  });

  it('reads a search/match page and the committed Paper.json with its abstract', async () => {
    const [match] = recordedBodies('semantic_scholar', /search\/match\?query=Attention\+is\+All/);
    const [attention] = papersOf(await readAll(readSemanticScholar, textInput(match ?? '')));
    expect(attention).toMatchObject({
      title: 'Attention is All you Need',
      type: 'conference-paper',
      identifiers: { arxiv: '1706.03762' },
    });
    expect(attention?.pdf_id).toBeUndefined();
    const file = join(
      testFixtures,
      'upstream/semantic_scholar/responses/danielnsilva_semanticscholar/Paper.json',
    );
    const [turing] = papersOf(await readAll(readSemanticScholar, fileInput(file)));
    expect(turing).toMatchObject({
      title: 'Computing Machinery and Intelligence',
      doi: '10.1093/mind/lix.236.433',
      year: 1950,
    });
    expect(turing?.abstract).toMatch(/^I propose to consider the question, “Can machines think\?”/);
  });

  it('reads the papers dataset JSONL (lower-case fields) and rejects a row without ids', async () => {
    const items = await readAll(readSemanticScholar, fileInput(join(fixtures, 's2-papers-dataset.jsonl')));
    const papers = papersOf(items, false);
    expect(papers.map((paper) => [paper.title, paper.type, paper.identifiers?.corpus_id])).toEqual([
      ['Attention is All you Need', 'conference-paper', '13756489'],
      ['Computing Machinery and Intelligence', 'journal-article', '14636783'],
      ['PaperQA: Retrieval-Augmented Generative Agent for Scientific Research', 'preprint', '266191411'],
    ]);
    expect(papers[1]).toMatchObject({
      venue: 'The Philosophy of Artificial Intelligence',
      cited_by_count: 10059,
      ss_id: '2d5673caa9e6af3a7b82a43f19ee920992db07ad',
    });
    expect(items[3]).toEqual({
      ok: false,
      reason: 'Semantic Scholar record has neither paperId nor corpusid',
      location: 'line 4',
    });
  });

  it('reads the abstracts dataset as untitled records keyed by corpus id', async () => {
    const papers = papersOf(
      await readAll(readSemanticScholar, fileInput(join(fixtures, 's2-abstracts-dataset.jsonl'))),
    );
    expect(papers[0]).toMatchObject({
      title: '',
      identifiers: { corpus_id: '13756489', arxiv: '1706.03762' },
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/1706.03762',
    });
    expect(papers[0]?.abstract).toMatch(/^The dominant sequence transduction models/);
    expect(papers[1]?.doi).toBe('10.1093/mind/lix.236.433');
  });
});
