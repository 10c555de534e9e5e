import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCrossref } from './crossref.js';
import { flatten } from './csl-item.js';
import { readCslJson } from './csl-json.js';
import { textInput } from './lines.js';
import { fileInput, fixtures, papersOf, readAll, recordedBodies } from './test-support.js';

describe('Crossref works', () => {
  it('reads a recorded work with its JATS abstract, CC-licensed PDF and citation count', async () => {
    const [body] = recordedBodies('crossref', /works\/10.1038%2Fs42256-024-00832-8/);
    const [paper] = papersOf(await readAll(readCrossref, textInput(body ?? '')));
    expect(paper).toMatchObject({
      title: 'Augmenting large language models with chemistry tools',
      doi: '10.1038/s42256-024-00832-8',
      venue: 'Nature Machine Intelligence',
      type: 'journal-article',
      publication_date: '2024-05-08',
      pdf_id: 'PDF_URL:https://www.nature.com/articles/s42256-024-00832-8.pdf',
      source: 'crossref',
    });
    expect(paper?.authors[0]).toBe('Andres M. Bran');
    expect(paper?.cited_by_count).toBeGreaterThan(0);
    expect(paper?.abstract).toMatch(/^Large language models \(LLMs\) have shown strong performance/);
    expect(paper?.abstract).not.toContain('<jats');
  });

  it('reads a bioRxiv posted-content record as a preprint and keeps a non-CC PDF link out', async () => {
    const [preprint] = papersOf(
      await readAll(
        readCrossref,
        textInput(recordedBodies('crossref', /works\/10.1101%2F2024.04.01.587366/)[0] ?? ''),
      ),
    );
    expect(preprint).toMatchObject({ type: 'preprint', publication_date: '2024-04-01', year: 2024 });
    expect(preprint?.abstract).toMatch(
      /^Understanding the effects of rare genetic variants remains challenging/,
    );
    const [springer] = papersOf(
      await readAll(
        readCrossref,
        textInput(recordedBodies('crossref', /works\/10.1023%2Fa:1007154515475/)[0] ?? ''),
      ),
    );
    expect(springer).toMatchObject({
      venue: 'Molecular and Cellular Biochemistry',
      publication_date: '2001-02',
    });
    expect(springer?.pdf_id).toBeUndefined();
  });

  it('reads every work of the recorded list responses, flattening markup in titles', async () => {
    const lists = recordedBodies('crossref', /api\.crossref\.org\/works\?/).filter((body) =>
      body.includes('"work-list"'),
    );
    let count = 0;
    for (const body of lists) {
      const items = await readAll(readCrossref, textInput(body));
      count += items.filter((item) => item.ok).length;
      // Crossref lists a few untitled works (components, datasets); those are the only rejections.
      expect(items.filter((item) => !item.ok && item.reason !== 'record has no title')).toEqual([]);
    }
    expect(count).toBe(229);
    const [pnas] = recordedBodies('crossref', /works\/10.1073%2Fpnas.1205508109/);
    const [paper] = papersOf(await readAll(readCrossref, textInput(pnas ?? '')));
    expect(paper?.title).toBe(
      'Oncogenic mutations mimic and enhance dynamic events in the natural activation of phosphoinositide 3-kinase p110α (PIK3CA)',
    );
  });

  it('reads a pretty-printed single-work file and rejects works without DOI or broken JSON', async () => {
    const [body] = recordedBodies('crossref', /works\/10.1063%2F1.4938384/).filter((text) =>
      text.startsWith('{'),
    );
    const pretty = JSON.stringify(JSON.parse(body ?? '{}'), null, 2);
    const [paper] = papersOf(await readAll(readCrossref, textInput(pretty)));
    expect(paper).toMatchObject({
      doi: '10.1063/1.4938384',
      venue: 'Journal of Applied Physics',
      publication_date: '2015-12-21',
    });
    const items = await readAll(
      readCrossref,
      textInput('{"title": ["No DOI"]}\n{"DOI": "10.1/x", "title": [\n'),
    );
    expect(items).toEqual([
      { ok: false, reason: 'Crossref work has no DOI', location: 'line 1' },
      { ok: false, reason: expect.stringMatching(/^invalid JSON/), location: 'line 2' },
    ]);
  });

  it('flattens HTML and entities', () => {
    expect(flatten('Seminars in Cell &amp; Developmental Biology')).toBe(
      'Seminars in Cell & Developmental Biology',
    );
    expect(
      flatten('<jats:title>Abstract</jats:title><jats:p>Text with <jats:italic>x</jats:italic>.</jats:p>'),
    ).toBe('Text with x.');
  });
});

describe('CSL-JSON', () => {
  it('maps CSL types and fields of an exported array, rejecting bad items with their position', async () => {
    const items = await readAll(readCslJson, fileInput(join(fixtures, 'references.csl.json')));
    const papers = papersOf(items, false);
    expect(papers.map((paper) => [paper.title, paper.type, paper.publication_date])).toEqual([
      ['A Mathematical Theory of Communication', 'journal-article', '1948-07'],
      ['DoTAT: A Domain-oriented Text Annotation Tool', 'conference-paper', '2022-05'],
      ['PaSa: An LLM Agent for Comprehensive Academic Paper Search', 'preprint', '2025-01-17'],
      ['Purely Functional Data Structures', 'thesis', '1996'],
    ]);
    expect(papers[0]).toMatchObject({
      authors: ['C. E. Shannon'],
      doi: '10.1002/j.1538-7305.1948.tb01338.x',
      venue: 'Bell System Technical Journal',
    });
    expect(papers[2]).toMatchObject({
      authors: ['Yichen He', 'ByteDance Research'],
      identifiers: { arxiv: '2501.10120' },
    });
    expect(items.filter((item) => !item.ok)).toEqual([
      { ok: false, reason: 'array element is not a JSON object', location: 'record 5 (line 47)' },
      { ok: false, reason: 'record has no title', location: 'record 6 (line 48)' },
    ]);
  });
});
