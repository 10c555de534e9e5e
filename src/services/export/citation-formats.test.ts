import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nestedMacroBomb, nestedMacros } from '../../../test/fakes/bibtex-bomb.js';
import { fixtures } from '../../../test/helpers/requirements.js';
import { emptyPaper, type Paper } from '../../domain/paper.js';
import { detectFormat, formatPapers, parseReferences } from './citation-formats.js';
import { joinPersonName, splitPersonName } from './csl-mapping.js';

const corpus = join(fixtures, 'corpus');

interface AclRecord {
  title: string;
  authors: string[];
  year: number;
  venue: string;
  doi: string | null;
  url: string;
  abstract: string | null;
  acl_id: string;
}

function toPaper(record: AclRecord): Paper {
  return {
    ...emptyPaper(record.title),
    authors: record.authors,
    year: record.year,
    publication_date: String(record.year),
    venue: record.venue,
    doi: record.doi,
    url: record.url,
    abstract: record.abstract,
    type: 'conference-paper',
    identifiers: { doi: record.doi, acl: record.acl_id },
  };
}

/** 200 records of the ACL sample (2022, no DOIs) and 150 older ones that have DOIs. */
function realPapers(): Paper[] {
  const sample = readFileSync(join(corpus, 'acl_anthology_sample_500.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .slice(0, 200)
    .map((line) => JSON.parse(line) as AclRecord);
  const withDoi = readFileSync(join(corpus, 'acl_anthology_records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"doi": "10.'))
    .slice(0, 150)
    .map((line) => JSON.parse(line) as AclRecord);
  return [...sample, ...withDoi].map(toPaper);
}

describe('round trip of real ACL Anthology records', () => {
  const papers = realPapers();

  it.each(['bibtex', 'ris', 'csl'] as const)(
    '%s export → import keeps titles, DOIs, authors and years',
    (format) => {
      const text = formatPapers(papers, format);
      expect(detectFormat(text)).toBe(format);
      const { papers: back, skipped } = parseReferences(text);
      expect(skipped).toEqual([]);
      expect(back).toHaveLength(papers.length);
      back.forEach((paper, index) => {
        const original = papers[index] as Paper;
        expect(paper.title).toBe(original.title.replace(/\s+/g, ' ').trim());
        expect(paper.doi).toBe(original.doi?.toLowerCase() ?? null);
        expect(paper.authors).toEqual(original.authors);
        expect(paper.year).toBe(original.year);
      });
      // The sample has DOIs (10.18653/…) and non-ASCII names; both survived.
      expect(back.filter((paper) => paper.doi?.startsWith('10.18653/')).length).toBeGreaterThan(100);
      expect(back.some((paper) => paper.authors.some((name) => /[^ -~]/.test(name)))).toBe(true);
    },
  );

  it('writes BibTeX entries with unique keys and the venue as booktitle', () => {
    const text = formatPapers(papers.slice(0, 3), 'bibtex');
    expect(text).toContain('@inproceedings{Lin2022DoTAT,');
    expect(text).toContain('booktitle = {Proceedings of the 60th {Annual} {Meeting}');
    const twins = formatPapers([papers[0] as Paper, papers[0] as Paper], 'bibtex');
    expect(twins).toContain('{Lin2022DoTAT,');
    expect(twins).toContain('{Lin2022DoTATa,');
  });

  it('writes RIS values on one line, however long', () => {
    const text = formatPapers(papers.slice(0, 5), 'ris');
    for (const line of text.trimEnd().split('\n')) expect(line).toMatch(/^[A-Z][A-Z0-9] {2}-( |$)/);
    expect(text).toContain('TY  - CONF');
    expect(text).toContain('TI  - DoTAT: A Domain-oriented Text Annotation Tool');
  });
});

describe('importing files written by other tools', () => {
  it('reads a BibTeX file with LaTeX accents, an arXiv eprint, a PMID and a @string', () => {
    const text = String.raw`@string{nar = "Nucleic Acids Research"}
@article{tang2024,
  title = {Highly efficient {DNA} condensation},
  author = {M{\"u}ller, Anna and Tang, Wei},
  journal = nar,
  year = {2024},
  doi = {https://doi.org/10.1093/NAR/gkae223},
  pmid = {38554115},
}
@misc{beyond,
  title = {Beyond Summarization},
  author = {Zhang, Ziqi},
  year = 2023,
  eprint = {2304.02623v1},
  archivePrefix = {arXiv},
}
@comment{ignored}`;
    const { papers } = parseReferences(text);
    expect(papers).toHaveLength(2);
    const [first, second] = papers as [Paper, Paper];
    expect(first).toMatchObject({
      title: 'Highly efficient DNA condensation',
      authors: ['Anna Müller', 'Wei Tang'],
      venue: 'Nucleic Acids Research',
      year: 2024,
      doi: '10.1093/nar/gkae223',
      type: 'journal-article',
      identifiers: { doi: '10.1093/nar/gkae223', pmid: '38554115' },
    });
    expect(second.identifiers?.arxiv).toBe('2304.02623');
  });

  it('reads RIS from a reference manager (old and new tags)', () => {
    const text = [
      'TY  - JOUR',
      'T1  - A Mathematical Theory of Communication',
      'A1  - Shannon, C. E.',
      'Y1  - 1948/07//',
      'JO  - Bell System Technical Journal',
      'DO  - 10.1002/j.1538-7305.1948.tb01338.x',
      'ER  - ',
      '',
      'TY  - CONF',
      'TI  - Attention Is All You Need',
      'AU  - Vaswani, Ashish',
      'PY  - 2017',
      'ER  - ',
    ].join('\n');
    const { papers } = parseReferences(text);
    expect(papers.map((paper) => [paper.title, paper.authors, paper.year, paper.doi])).toEqual([
      [
        'A Mathematical Theory of Communication',
        ['C. E. Shannon'],
        1948,
        '10.1002/j.1538-7305.1948.tb01338.x',
      ],
      ['Attention Is All You Need', ['Ashish Vaswani'], 2017, null],
    ]);
  });

  it('skips entries without a title and reports where they were', () => {
    const { papers, skipped } = parseReferences('[{"title":"Kept"},{"author":[{"family":"X"}]}]');
    expect(papers.map((paper) => paper.title)).toEqual(['Kept']);
    expect(skipped).toEqual([{ index: 1, reason: 'entry has no title' }]);
  });

  it('refuses text that is no reference file, without fetching a URL-looking input', () => {
    expect(() => parseReferences('https://example.org/refs.bib')).toThrow(/Could not tell the file format/);
    expect(() => parseReferences('https://example.org/refs.bib', 'bibtex')).toThrow(/No BIBTEX entries/);
    expect(() => parseReferences('@comment{nothing here}')).toThrow(/No BIBTEX entries/);
    expect(() => parseReferences('[not json', 'csl')).toThrow(/not valid JSON/);
  });
});

describe('author names', () => {
  it.each([
    ['Yupian Lin', { given: 'Yupian', family: 'Lin' }],
    ['Ludwig van Beethoven', { given: 'Ludwig', family: 'van Beethoven' }],
    ['Martin Luther King Jr.', { given: 'Martin Luther', family: 'King', suffix: 'Jr.' }],
    ['Müller, Anna', { given: 'Anna', family: 'Müller' }],
    ['OpenAI', { literal: 'OpenAI' }],
    // Names as the PDF byline reader gives them (issue 16).
    ['Adrian Del Maestro', { given: 'Adrian', family: 'Del Maestro' }],
    ['Jessica M. A. Blair', { given: 'Jessica M. A.', family: 'Blair' }],
    ['Elio A. Abbondanzieri', { given: 'Elio A.', family: 'Abbondanzieri' }],
    ['Weinan E', { given: 'Weinan', family: 'E' }],
    ['C. E. Shannon', { given: 'C. E.', family: 'Shannon' }],
    ['김창호', { literal: '김창호' }],
  ])('%s', (text, parts) => {
    expect(splitPersonName(text)).toEqual(parts);
    if (!text.includes(',')) expect(joinPersonName(splitPersonName(text))).toBe(text);
  });
});

function refusal(run: () => unknown): { code: string; param?: string; message: string } {
  try {
    run();
  } catch (error) {
    const { code, param, message } = error as { code: string; param?: string; message: string };
    return { code, param, message };
  }
  throw new Error('expected a refusal');
}

describe('input limits (issue 13)', () => {
  it('refuses the nested-@string expansion bomb before citation-js expands it', () => {
    const bomb = nestedMacroBomb(9, 'author = {Doe, Jane}, year = 2020'); // 600 bytes → a 1,073,741,824-character title
    expect(bomb.length).toBeLessThan(650);
    const started = performance.now();
    const error = refusal(() => parseReferences(bomb));
    expect(performance.now() - started).toBeLessThan(500);
    expect(error).toMatchObject({ code: 'payload_too_large', param: 'file' });
    expect(error.message).toMatch(/@string \w expands to \d+ characters once @string macros are resolved/);
  });

  it('refuses a file whose macros stay under the field limit but add up past the request budget', () => {
    // A 96k-character macro used once by each of 300 entries: about 29M characters in all.
    const macro = `${nestedMacros(4)}@string{big = e # e # e}\n`;
    const entries = Array.from({ length: 300 }, (_, index) => `@misc{k${index}, title = big}`).join('\n');
    const error = refusal(() => parseReferences(`${macro}${entries}`));
    expect(error).toMatchObject({ code: 'payload_too_large', param: 'file' });
    expect(error.message).toMatch(/^The file expands to \d+ characters/);
  });

  it('refuses an entry too large to store, naming the entry and the field', () => {
    const text = `@article{long, title = {${'word '.repeat(1000)}}, year = 2020}`;
    const error = refusal(() => parseReferences(text));
    expect(error).toMatchObject({ code: 'payload_too_large', param: 'file' });
    expect(error.message).toBe('Entry 1 is too large to store: title is 4999 characters (at most 4000)');
  });

  it('refuses deeply nested CSL-JSON with a 422 naming file, not a stack overflow', () => {
    const deep = `[{"title":"Deep","note":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const error = refusal(() => parseReferences(deep, 'csl'));
    expect(error).toMatchObject({ code: 'unprocessable', param: 'file' });
    expect(error.message).toMatch(/nested deeper than 64 levels/);
  });

  it('still reads real macros: a journal abbreviation used by many entries', () => {
    const text = `@string{jmlr = "Journal of Machine Learning Research"}
@article{a, title = {First}, journal = jmlr, year = 2020}
@article{b, title = {Second}, journal = jmlr # " (special issue)", year = 2021}`;
    const { papers } = parseReferences(text);
    expect(papers.map((paper) => paper.venue)).toEqual([
      'Journal of Machine Learning Research',
      'Journal of Machine Learning Research (special issue)',
    ]);
  });
});
