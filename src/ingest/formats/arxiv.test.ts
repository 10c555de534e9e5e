import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArxivAtom } from './arxiv-atom.js';
import { readArxivSnapshot } from './arxiv-snapshot.js';
import { latexToUnicode } from './latex-text.js';
import { textInput } from './lines.js';
import { fileInput, fixtures, papersOf, readAll, testFixtures } from './test-support.js';

const responses = join(testFixtures, 'upstream/arxiv/responses');

describe('arXiv metadata snapshot', () => {
  it('reads published and preprint records with LaTeX names decoded and the v1 date', async () => {
    const items = await readAll(
      readArxivSnapshot,
      fileInput(join(fixtures, 'arxiv-metadata-snapshot.jsonl')),
    );
    const papers = papersOf(items, false);
    expect(papers[0]).toMatchObject({
      title: 'Calculation of prompt diphoton production cross sections at Tevatron and LHC energies',
      authors: ['C. Balázs', 'E. L. Berger', 'P. M. Nadolsky', 'C. -P. Yuan'],
      publication_date: '2007-04-02',
      year: 2007,
      venue: 'Phys.Rev.D76:013009,2007',
      type: 'journal-article',
      doi: '10.1103/physrevd.76.013009',
      identifiers: { arxiv: '0704.0001' },
      url: 'https://arxiv.org/abs/0704.0001',
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/0704.0001',
    });
    expect(papers[0]?.abstract).toBe(
      'A fully differential calculation in perturbative quantum chromodynamics is presented for the production of massive photon pairs at hadron colliders.',
    );
    expect(papers[1]).toMatchObject({
      authors: ['James M. Murray', 'Adrian Del Maestro', 'Zlatko Tesanovic'],
      publication_date: '2011-11-08',
    });
    expect(papers[2]).toMatchObject({
      type: 'preprint',
      venue: 'arXiv',
      authors: ['Caprice Stanley', 'Tobias Windisch'],
    });
    expect(items[3]).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^invalid JSON/),
      location: 'line 4',
    });
  });

  it('decodes LaTeX accents and letters', () => {
    expect(latexToUnicode(String.raw`M\"uller, Erd\H{o}s, {\o}stergaard, Gr\"{o}bner, \c{C}etin`)).toBe(
      'Müller, Erdős, østergaard, Gröbner, Çetin',
    );
    expect(latexToUnicode('$\\alpha$-stable {B}rownian')).toBe('$\\alpha$-stable {B}rownian');
  });
});

describe('arXiv Atom feed', () => {
  it('reads a recorded id_list response with DOI and journal reference', async () => {
    const [paper] = papersOf(
      await readAll(readArxivAtom, fileInput(join(responses, 'arxiv.py_2016/id_list=1111.2011v2.xml'))),
    );
    expect(paper).toMatchObject({
      title: 'Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit',
      authors: ['James M. Murray', 'Adrian Del Maestro', 'Zlatko Tesanovic'],
      publication_date: '2011-11-08',
      doi: '10.1103/physrevb.85.115117',
      venue: 'Phys. Rev. B 85, 115117 (2012)',
      type: 'journal-article',
      identifiers: { arxiv: '1111.2011' },
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/1111.2011v2',
    });
    expect(paper?.abstract).toMatch(
      /^Theoretical description of anisotropic systems, such as layered superconductors/,
    );
  });

  it('reads a search page of the newer API and rejects the error entry of a bad id', async () => {
    const page = JSON.parse(
      readFileSync(join(responses, 'arxiv.py_2026/q_testing_s0_m10_bc5a6c384fe9.json'), 'utf8'),
    ) as { body: string };
    const papers = papersOf(await readAll(readArxivAtom, textInput(page.body)));
    expect(papers).toHaveLength(10);
    expect(papers.every((paper) => paper.identifiers?.arxiv && paper.title.length > 0)).toBe(true);
    const bad = JSON.parse(
      readFileSync(join(responses, 'arxiv.py_2026/id_abc_s0_m100_b79c8dcf6bc3.json'), 'utf8'),
    ) as { body: string };
    const items = await readAll(readArxivAtom, textInput(bad.body));
    expect(items).toEqual([
      {
        ok: false,
        reason: 'entry is not an arXiv paper (id https://arxiv.org/api/errors#incorrect_id_format_for_abc)',
        location: expect.stringMatching(/^record 1 \(byte \d+\)$/),
      },
    ]);
  });
});
