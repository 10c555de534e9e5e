import { describe, expect, it } from 'vitest';
import { textInput } from './lines.js';
import { readOpenAlex, rebuildAbstract } from './openalex.js';
import { papersOf, readAll, recordedBodies } from './test-support.js';

describe('OpenAlex works', () => {
  it('reads a recorded single-work response with ids, venue, type and citations', async () => {
    const [body] = recordedBodies('openalex', /works\/https:\/\/doi.org\/10.1073%2Fpnas.1414271111$/);
    const [paper] = papersOf(await readAll(readOpenAlex, textInput(body ?? '')));
    expect(paper).toMatchObject({
      title:
        'Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen cross-linking',
      doi: '10.1073/pnas.1414271111',
      year: 2014,
      type: 'journal-article',
      venue: 'Proceedings of the National Academy of Sciences',
      identifiers: { openalex: 'W2109415576', pmid: '25349395', pmcid: 'PMC4234579', mag: '2109415576' },
      source: 'openalex',
    });
    expect(paper?.authors.length).toBeGreaterThan(2);
    expect(paper?.cited_by_count).toBeGreaterThan(0);
    expect(paper?.abstract?.split(' ').length).toBeGreaterThan(100);
  });

  it('reads a search page, keeping the open-access PDF and marking arXiv postings as preprints', async () => {
    const [body] = recordedBodies('openalex', /title.search%3AAugmenting/);
    const papers = papersOf(await readAll(readOpenAlex, textInput(body ?? '')));
    expect(papers.map((paper) => paper.type)).toEqual(['journal-article', 'preprint']);
    expect(papers[0]).toMatchObject({
      title: 'Augmenting large language models with chemistry tools',
      venue: 'Nature Machine Intelligence',
      pdf_id: 'PDF_URL:https://www.nature.com/articles/s42256-024-00832-8.pdf',
      identifiers: { pmid: '38799228' },
    });
    expect(papers[1]?.identifiers).toMatchObject({ arxiv: '2304.05376', doi: '10.48550/arxiv.2304.05376' });
    expect(papers[0]?.abstract).toMatch(/^Large language models \(LLMs\) have shown strong performance/);
  });

  it('reads every recorded work and a snapshot-style JSONL', async () => {
    const bodies = recordedBodies('openalex', /api\.openalex\.org\/works/).filter((body) =>
      body.includes('"authorships"'),
    );
    const lines = bodies.map((body) => JSON.stringify(JSON.parse(body))).join('\n');
    const items = await readAll(readOpenAlex, textInput(lines));
    expect(items.filter((item) => item.ok)).toHaveLength(9);
    expect(items.every((item) => item.ok)).toBe(true);
  });

  it('rebuilds the abstract from the inverted index in word order', () => {
    expect(rebuildAbstract({ world: [1], Hello: [0], again: [3], hello: [2] })).toBe(
      'Hello world hello again',
    );
    expect(rebuildAbstract(null)).toBeNull();
  });

  it('rejects a work without an OpenAlex id and a broken line', async () => {
    const items = await readAll(readOpenAlex, textInput('{"title": "x"}\n{"id": "W1", "title": \n'));
    expect(items).toEqual([
      { ok: false, reason: 'OpenAlex work has no W… id', location: 'line 1' },
      { ok: false, reason: expect.stringMatching(/^invalid JSON/), location: 'line 2' },
    ]);
  });
});
