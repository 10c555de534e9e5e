import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../domain/paper.js';
import { auditCitations } from './citation-audit.js';
import { CitationFilter, checkCitations, removedCitationNote } from './citation-filter.js';
import { SourceLedger } from './source-ledger.js';

const gersing: Paper = {
  ...emptyPaper('A comprehensive map of human glucokinase variant activity'),
  authors: ['Sarah Gersing', 'Thea K. Schulze', 'Matteo Cagiada'],
  year: 2023,
  doi: '10.1186/s13059-023-02935-8',
  url: 'https://doi.org/10.1186/s13059-023-02935-8',
  pdf_id: 'PROJ:gpt/doc_gck',
};
const hartman: Paper = {
  ...emptyPaper('Differential development of antibiotic resistance between Acinetobacter species'),
  authors: ['Hartman, Emily'],
  year: 2024,
  url: 'https://journals.asm.org/doi/10.1128/msphere.00109-24',
};

function ledger(): SourceLedger {
  const result = new SourceLedger();
  result.add(gersing);
  result.add(hartman);
  return result;
}

describe('CitationFilter', () => {
  it('keeps a correct citation to a retrieved record', () => {
    const { text, report } = checkCitations(
      'GCK variants were mapped [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8).',
      ledger(),
    );
    expect(text).toBe(
      'GCK variants were mapped [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8).',
    );
    expect(report).toMatchObject({ kept: 1, corrected: 0, removed: [] });
    expect(report.cited.map((source) => source.label)).toEqual(['Gersing et al., 2023']);
  });

  it('removes a fabricated citation and counts it', () => {
    const { text, report } = checkCitations(
      'Vaccines work [Smith et al., 2021](https://doi.org/10.1000/fabricated).',
      ledger(),
    );
    expect(text).toBe(`Vaccines work ${removedCitationNote}.`);
    expect(report.removed).toEqual([
      {
        text: '[Smith et al., 2021](https://doi.org/10.1000/fabricated)',
        reason: 'links to no retrieved record',
      },
    ]);
    expect(report.cited).toEqual([]);
  });

  it('corrects a wrong label or another form of the same record url', () => {
    const { text, report } = checkCitations(
      'See [this map](http://dx.doi.org/10.1186/S13059-023-02935-8) and [Hartman 2024](https://example.org/wrong).',
      ledger(),
    );
    expect(text).toBe(
      'See [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8) and [Hartman, 2024](https://journals.asm.org/doi/10.1128/msphere.00109-24).',
    );
    expect(report.corrected).toBe(2);
  });

  it('links bare author–year citations and source ids, and removes unknown ones', () => {
    const { text, report } = checkCitations(
      'Resistance evolved (Hartman, 2024; Jones et al., 2019) as in [S1].',
      ledger(),
    );
    expect(text).toBe(
      `Resistance evolved ([Hartman, 2024](https://journals.asm.org/doi/10.1128/msphere.00109-24); ${removedCitationNote}) as in [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8).`,
    );
    expect(report.linked).toBe(2);
    expect(report.removed.map((entry) => entry.text)).toEqual(['Jones et al., 2019']);
  });

  it('leaves ordinary brackets and parentheses alone', () => {
    const input = 'Values [0.5, 1] were used (see Figure 2) in step (a) and [1].';
    expect(checkCitations(input, ledger()).text).toBe(input);
  });

  it('removes bare urls and images of unretrieved records but keeps retrieved ones and seen figures', () => {
    const sources = ledger();
    sources.addFigure('http://localhost:8080/api/figures/abc.png');
    const { text, report } = checkCitations(
      'Go to https://evil.example/phish. Data: https://doi.org/10.1186/s13059-023-02935-8.\n![Fig 1](http://localhost:8080/api/figures/abc.png) ![x](https://evil.example/x.png)',
      sources,
    );
    expect(text).toBe(
      `Go to ${removedCitationNote}. Data: https://doi.org/10.1186/s13059-023-02935-8.\n![Fig 1](http://localhost:8080/api/figures/abc.png) ${removedCitationNote}`,
    );
    expect(report.removed).toHaveLength(2);
  });

  it('gives the same output whatever the streaming boundaries', () => {
    const input =
      'A (Hartman, 2024) b [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8) c https://evil.example/x d [Smith, 2020](https://x.org) \\[not a link\\] e';
    const whole = checkCitations(input, ledger()).text;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: input.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const filter = new CitationFilter(ledger());
        let output = '';
        let previous = 0;
        for (const point of [...points, input.length]) {
          output += filter.push(input.slice(previous, point));
          previous = point;
        }
        output += filter.end();
        expect(output).toBe(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('sends plain text at once and holds back only an unfinished link', () => {
    const filter = new CitationFilter(ledger());
    expect(filter.push('Glucokinase is a sensor ')).toBe('Glucokinase is a sensor ');
    expect(filter.push('[Gersing et al., 20')).toBe('');
    expect(filter.push('23](https://doi.org/10.1186/s13059-023-02935-8) and ht')).toBe(
      '[Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8) and ',
    );
    expect(filter.push('tps://evil.example done')).toBe(`${removedCitationNote} done`);
    expect(filter.end()).toBe('');
  });
});

describe('auditCitations', () => {
  it('finds every kind of unverified citation in raw text, and none once the filter has run', () => {
    const raw =
      'A [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8) B [Smith, 2020](https://x.org/p) C https://evil.example/x D (Jones et al., 2019) E ![f](https://evil.example/f.png) F \\(Quoted, 2001) G (Hartman, 2024)';
    expect(auditCitations(raw, ledger())).toEqual([
      { text: '[Smith, 2020](https://x.org/p)', kind: 'link' },
      { text: '![f](https://evil.example/f.png)', kind: 'image' },
      { text: 'https://evil.example/x', kind: 'url' },
      { text: 'Jones et al., 2019', kind: 'author-year' },
    ]);
    const sources = ledger();
    expect(auditCitations(checkCitations(raw, sources).text, sources)).toEqual([]);
  });
});
