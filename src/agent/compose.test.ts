import { describe, expect, it } from 'vitest';
import { emptyPaper } from '../domain/paper.js';
import { isBibliographic, referencesSection, withoutBibliography } from './compose.js';
import type { RetrievedSource } from './source-ledger.js';

const source = (title: string, url: string): RetrievedSource => ({
  id: 'S1',
  paper: { ...emptyPaper(title), url, year: 2020 },
  label: 'Smith, 2020',
  url,
});

describe('referencesSection', () => {
  it('ends each entry with one full stop, also after a title that ends a sentence itself', () => {
    const section = referencesSection([
      source('Cancer-associated adipocytes contribute to breast cancer invasion.', 'https://example.org/1'),
      source('Does a discharge coordinator help?', 'https://example.org/2'),
      source('Bridging DNA contacts', 'https://example.org/3'),
    ]);
    expect(section).toContain('— Cancer-associated adipocytes contribute to breast cancer invasion.\n');
    expect(section).toContain('— Does a discharge coordinator help?\n');
    expect(section).toContain('— Bridging DNA contacts.\n');
    expect(section).not.toMatch(/\.\.|\?\./);
  });
});

describe('bibliography entries', () => {
  it('are told apart from prose', () => {
    expect(
      isBibliographic(
        'Heredia VV, Thomson J, Nettleton D, Sun S. Glucose‐induced conformational changes in glucokinase mediate allosteric regulation: transient kinetic analysis.',
      ),
    ).toBe(true);
    expect(isBibliographic('Cell Rep. 2021;35:109967.')).toBe(true);
    expect(
      isBibliographic(
        'By examining enzyme kinetics, Heredia et al. found that p.T65I, p.Y215A and p.A456V mainly accelerate glucose binding.',
      ),
    ).toBe(false);
    expect(withoutBibliography('Results text.\n\n## References\n1. Smith J. A paper.')).toBe(
      'Results text.\n\n',
    );
  });
});
