import { describe, expect, it } from 'vitest';
import { cleanPersonName, nameKey, splitPersonNames } from './person-names.js';

describe('cleanPersonName', () => {
  it('drops affiliation markers and keeps initials, particles and hyphens', () => {
    expect(cleanPersonName('Frederick P. Roth2,3,4,6*')).toBe('Frederick P. Roth');
    expect(cleanPersonName('Kresten Lindorff\u2011Larsen1*')).toBe('Kresten Lindorff-Larsen');
    expect(cleanPersonName('Jessica M. A. Blair1')).toBe('Jessica M. A. Blair');
    expect(cleanPersonName('Adrian Del Maestro')).toBe('Adrian Del Maestro');
    expect(cleanPersonName('Ludwig van Beethoven')).toBe('Ludwig van Beethoven');
    expect(cleanPersonName('and Mitch McVey')).toBe('Mitch McVey');
    expect(cleanPersonName('Weinan E')).toBe('Weinan E');
    expect(cleanPersonName('Tal August')).toBe('Tal August');
  });

  it('puts an all-capitals name in title case and joins Korean syllables', () => {
    expect(cleanPersonName('C. E. SHANNON')).toBe('C. E. Shannon');
    expect(cleanPersonName('김 창 호*')).toBe('김창호');
  });

  it('refuses what is not a person: affiliations, banners, organisations, single words, dates', () => {
    for (const text of [
      'Allen Institute for AI',
      'RESEARCH ARTICLE',
      'Open Access',
      'Meta AI',
      'Bloomberg',
      'September 1996',
      'These authors contributed equally',
      'University of Washington',
      'jbragg@allenai.org',
    ]) {
      expect(cleanPersonName(text), text).toBeUndefined();
    }
  });
});

describe('splitPersonNames', () => {
  it('splits at commas, "and", "&" and marker separators', () => {
    expect(
      splitPersonNames(
        'Sneha Shahu1, Natalia Vtyurina, Moumita Das 3, Anne S. Meyer2, Mahipal Ganji1,* and Elio A. Abbondanzieri 2,*',
      ),
    ).toEqual([
      'Sneha Shahu',
      'Natalia Vtyurina',
      'Moumita Das',
      'Anne S. Meyer',
      'Mahipal Ganji',
      'Elio A. Abbondanzieri',
    ]);
    expect(splitPersonNames('Kyle Lo | Zejiang Shen | Benjamin Newman & Joseph Chee Chang')).toEqual([
      'Kyle Lo',
      'Zejiang Shen',
      'Benjamin Newman',
      'Joseph Chee Chang',
    ]);
  });
});

describe('nameKey', () => {
  it('compares names without case, accents, punctuation or word order', () => {
    expect(nameKey('Zlatko Tešanović')).toBe(nameKey('zlatko tesanovic'));
    expect(nameKey('Shahu Sneha')).toBe(nameKey('Sneha Shahu'));
    expect(nameKey('Atina G. Coté')).toBe('atina cote g');
  });
});
