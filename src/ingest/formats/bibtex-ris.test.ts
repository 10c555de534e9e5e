import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nestedMacros } from '../../../test/fakes/bibtex-bomb.js';
import type { IngestItem } from '../ingest-item.js';
import { inputLimits } from '../limits/input-limits.js';
import { readBibtex } from './bibtex.js';
import { LineSplitter, textInput } from './lines.js';
import { readRis } from './ris.js';
import { fileInput, fixtures, papersOf, readAll, recordedBodies } from './test-support.js';
import { splitEntries } from './text-entries.js';

describe('BibTeX input limits (issue 13)', () => {
  it('expansion bomb: refuses the macro and the entries using it, reads the rest, expands nothing', async () => {
    const text = `${nestedMacros(9)}@article{bomb, title = j, year = 2020}
@article{fine, title = {A Fine Title}, journal = c, year = 2021}
@article{also, title = {Uses a macro of the bomb} # " " # i, year = 2021}
`;
    const started = performance.now();
    const items = await readAll(readBibtex, textInput(text));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(
      items.map((item) => (item.ok ? [item.location, item.paper.title] : [item.location, item.reason])),
    ).toEqual([
      ['line 6', '@string f once expanded is 262144 characters (at most 100000)'],
      ['line 7', '@string g once expanded is unboundedly many characters (at most 100000)'],
      ['line 8', '@string h once expanded is unboundedly many characters (at most 100000)'],
      ['line 9', '@string i once expanded is unboundedly many characters (at most 100000)'],
      ['line 10', '@string j once expanded is unboundedly many characters (at most 100000)'],
      [
        'line 11',
        'the field title of entry bomb once expanded is unboundedly many characters (at most 100000)',
      ],
      [
        'line 13',
        'the field title of entry also once expanded is unboundedly many characters (at most 100000)',
      ],
      ['line 12', 'A Fine Title'],
    ]);
    const fine = papersOf(items, false)[0];
    expect(fine?.venue).toHaveLength(512);
  });

  it('refuses a record whose stored title would be too long', async () => {
    const items = await readAll(readBibtex, textInput(`@article{long, title = {${'word '.repeat(1000)}}}\n`));
    expect(items).toEqual([
      { ok: false, reason: 'long: title is 4999 characters (at most 4000)', location: 'line 1' },
    ]);
  });
});

describe('BibTeX and RIS with one huge line (issue 13)', () => {
  const cap = inputLimits.entryChars;
  const hugeLine = 40 * 1024 * 1024;
  const chunk = Buffer.from('x'.repeat(64 * 1024));

  /** The text before the huge line, the huge line streamed in 64 KiB byte chunks, the text after. */
  async function* generated(before: string, after: string): AsyncGenerator<string | Uint8Array> {
    yield before;
    for (let sent = 0; sent < hugeLine; sent += chunk.length) yield chunk;
    yield after;
  }

  /** Most characters any line splitter held at once while `run` read. */
  async function mostHeld(run: () => Promise<void>): Promise<number> {
    let held = 0;
    const push = LineSplitter.prototype.push;
    vi.spyOn(LineSplitter.prototype, 'push').mockImplementation(function (this: LineSplitter, text, out) {
      push.call(this, text, out);
      held = Math.max(held, this.pendingChars);
    });
    await run();
    return held;
  }

  afterEach(() => {
    vi.restoreAllMocks();
  });

  const cases = [
    {
      format: 'BibTeX',
      reader: readBibtex,
      isStart: (line: string) => line.startsWith('@'),
      before:
        '@article{one, title = {First Good Entry}, year = 2020}\n@article{big,\n  title = {Big},\n  abstract = {',
      after: '}\n}\n@article{two, title = {Second Good Entry}, year = 2021}\n',
      refused: { start: 2, line: 4 },
    },
    {
      format: 'RIS',
      reader: readRis,
      isStart: (line: string) => line.startsWith('TY  - '),
      before: 'TY  - JOUR\nTI  - First Good Entry\nER  - \nTY  - JOUR\nTI  - Big\nAB  - ',
      after: '\nER  - \nTY  - JOUR\nTI  - Second Good Entry\nER  - \n',
      refused: { start: 4, line: 6 },
    },
  ];

  it.each(cases)(
    '$format: one huge line is read whole before the entry cap applies — its entry is refused by line, the others read',
    async ({ reader, before, after, refused }) => {
      let items: IngestItem[] = [];
      const held = await mostHeld(async () => {
        items = await readAll(reader, generated(before, after));
      });
      expect(held).toBeLessThanOrEqual(cap);
      expect(papersOf(items, false).map((paper) => paper.title)).toEqual([
        'First Good Entry',
        'Second Good Entry',
      ]);
      const length = hugeLine + (before.length - before.lastIndexOf('\n') - 1) + after.indexOf('\n');
      expect(items.filter((item) => !item.ok)).toEqual([
        {
          ok: false,
          reason: `line ${refused.line} is ${length} characters (at most ${cap}); skipped without reading it`,
          location: `line ${refused.start}`,
        },
      ]);
    },
  );

  it.each(cases)(
    '$format: the splitter holds no entry or line past the cap, and yields no cut text',
    async ({ isStart, before, after, refused }) => {
      const entries: { line: number; chars: number; refused: boolean }[] = [];
      const held = await mostHeld(async () => {
        for await (const entry of splitEntries(generated(before, after), { isStart })) {
          entries.push({ line: entry.line, chars: entry.text.length, refused: entry.refused !== undefined });
        }
      });
      expect(held).toBeLessThanOrEqual(cap);
      expect(entries.map((entry) => entry.chars <= cap)).toEqual([true, true, true]);
      expect(entries.filter((entry) => entry.refused)).toEqual([
        { line: refused.start, chars: 0, refused: true },
      ]);
    },
  );

  it('a splitter that cuts an over-long entry: refuses an entry whose lines together pass the cap instead', async () => {
    const entries = [];
    for await (const entry of splitEntries(textInput('@a{x,\n  note = {abc},\n  note = {def}\n}\n@b{y}\n'), {
      isStart: (line) => line.startsWith('@'),
      maxLength: 30,
    })) {
      entries.push(entry);
    }
    expect(entries).toEqual([
      { text: '', line: 1, refused: 'entry is 38 characters (at most 30)' },
      { text: '@b{y}', line: 5 },
    ]);
  });
});

describe('BibTeX', () => {
  it('reads an exported bibliography with macros, arXiv eprints and a broken entry', async () => {
    const items = await readAll(readBibtex, fileInput(join(fixtures, 'references.bib')));
    expect(
      items.map((item) =>
        item.ok ? [item.location, item.paper.type, item.paper.title] : [item.location, item.reason],
      ),
    ).toEqual([
      ['line 7', 'conference-paper', 'DoTAT: A Domain-oriented Text Annotation Tool'],
      ['line 26', 'preprint', 'Attention Is All You Need'],
      ['line 35', expect.stringMatching(/^entry could not be parsed/)],
      ['line 39', 'journal-article', 'TabR: Tabular Deep Learning Meets Nearest Neighbors'],
      ['line 50', 'thesis', 'Purely Functional Data Structures'],
      [
        'line 59',
        'journal-article',
        'Calculation of prompt diphoton production cross sections at Tevatron and LHC energies',
      ],
    ]);
    const papers = papersOf(items, false);
    expect(papers[0]).toMatchObject({
      authors: ['Yupian Lin', 'Tong Ruan', 'Ming Liang', 'Tingting Cai', 'Wen Du', 'Yi Wang'],
      doi: '10.18653/v1/2022.acl-demo.1',
      publication_date: '2022-05',
      abstract: 'We propose DoTAT, a domain-oriented text annotation tool.',
      source: 'bibtex',
    });
    expect(papers[1]).toMatchObject({
      identifiers: { arxiv: '1706.03762' },
      pdf_id: 'PDF_URL:https://arxiv.org/pdf/1706.03762',
    });
    expect(papers[2]?.venue).toBe('Journal of Machine Learning Research');
    expect(papers[4]).toMatchObject({
      authors: ['C. Balázs', 'E. L. Berger', 'P. M. Nadolsky', 'C.-P. Yuan'],
      identifiers: { arxiv: '0704.0001' },
    });
  });

  it('reads the BibTeX that Crossref and Semantic Scholar really serve', async () => {
    const [crossref] = recordedBodies('crossref', /transform$/).filter((body) =>
      body.trimStart().startsWith('@'),
    );
    const [frank] = papersOf(await readAll(readBibtex, textInput(crossref ?? '')));
    expect(frank).toMatchObject({
      title:
        'The Structure of Ordinary Water: New data and interpretations are yielding new insights into this fascinating substance.',
      authors: ['Henry S. Frank'],
      doi: '10.1126/science.169.3946.635',
      venue: 'Science',
      publication_date: '1970-08',
      type: 'journal-article',
    });
    const [s2] = recordedBodies('semantic_scholar', /paper\/DOI:10.1038\/s42256-024-00832-8/);
    const bibtex = (JSON.parse(s2 ?? '{}') as { citationStyles: { bibtex: string } }).citationStyles.bibtex;
    const [bran] = papersOf(await readAll(readBibtex, textInput(bibtex)));
    expect(bran).toMatchObject({
      title: 'Augmenting large language models with chemistry tools',
      year: 2023,
      venue: 'Nature Machine Intelligence',
    });
    expect(bran?.authors[0]).toBe('Andrés M Bran');
  });

  it('keeps a big .bib bounded: entries are parsed in batches, each rejection keeps its line', async () => {
    const entries = Array.from({ length: 1000 }, (_, index) =>
      index === 500
        ? '@article{bad, title = {x'
        : `@article{k${index}, title = {Paper ${index}}, author = {Doe, Jane}, journal = {J}, year = {2001}}`,
    );
    const items = await readAll(readBibtex, textInput(`${entries.join('\n')}\n`));
    expect(items.filter((item) => item.ok)).toHaveLength(999);
    expect(items.find((item) => !item.ok)).toMatchObject({ location: 'line 501' });
  });
});

describe('RIS', () => {
  it('reads PubMed, conference and preprint records, with the PDF link and PMID from raw tags', async () => {
    const items = await readAll(readRis, fileInput(join(fixtures, 'references.ris')));
    const papers = papersOf(items, false);
    expect(papers.map((paper) => [paper.type, paper.title])).toEqual([
      [
        'journal-article',
        'Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer',
      ],
      ['conference-paper', 'DoTAT: A Domain-oriented Text Annotation Tool'],
      ['preprint', 'PaSa: An LLM Agent for Comprehensive Academic Paper Search'],
    ]);
    expect(papers[0]).toMatchObject({
      authors: ['Ying Bao', 'Jennifer Prescott', 'Chen Yuan'],
      identifiers: { pmid: '27797938' },
      venue: 'Gut',
      source: 'ris',
    });
    expect(papers[1]).toMatchObject({
      pdf_id: 'PDF_URL:https://aclanthology.org/2022.acl-demo.1.pdf',
      publication_date: '2022-05',
    });
    // A local file attachment is not an open PDF url.
    expect(papers[2]?.pdf_id).toBeUndefined();
    expect(papers[2]?.identifiers?.arxiv).toBe('2501.10120');
    expect(items[3]).toEqual({ ok: false, reason: 'record has no title', location: 'line 43' });
  });
});
