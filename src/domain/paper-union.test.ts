import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from './paper.js';
import { identifiersConflict, unitePapers } from './paper-union.js';
import { isPatent, isPeerReviewed } from './peer-review.js';

const paper = (fields: Partial<Paper>): Paper => ({ ...emptyPaper('A title of a paper'), ...fields });

describe('unitePapers', () => {
  const stored = paper({
    abstract: 'Short.',
    authors: ['A'],
    publication_date: '2019',
    year: 2019,
    cited_by_count: 10,
    type: 'preprint',
    identifiers: { arxiv: '1901.00001' },
  });
  const incoming = paper({
    abstract: 'A longer abstract of the same paper.',
    authors: ['A', 'B'],
    publication_date: '2019-05-02',
    year: 2019,
    cited_by_count: 4,
    type: 'journal-article',
    doi: '10.1000/j',
    venue: 'Journal',
    identifiers: { doi: '10.1000/j', arxiv: '1901.99999' },
  });

  it('keeps known values, prefers the more informative one, and takes the larger citation count', () => {
    expect(unitePapers(stored, incoming)).toMatchObject({
      abstract: 'A longer abstract of the same paper.',
      authors: ['A', 'B'],
      publication_date: '2019-05-02',
      cited_by_count: 10,
      type: 'journal-article',
      doi: '10.1000/j',
      venue: 'Journal',
      identifiers: { arxiv: '1901.00001', doi: '10.1000/j' },
    });
  });

  it('is idempotent and never erases a value with a missing one', () => {
    const once = unitePapers(stored, incoming);
    expect(unitePapers(once, incoming)).toEqual(once);
    expect(unitePapers(once, stored)).toEqual(once);
    expect(unitePapers(once, paper({ abstract: null, doi: null, cited_by_count: null }))).toEqual(once);
  });
});

describe('identifiersConflict', () => {
  it('is true only for two different values of the same identifier type', () => {
    expect(identifiersConflict(paper({ doi: '10.1000/a' }), paper({ doi: '10.1000/B' }))).toBe(true);
    expect(
      identifiersConflict(paper({ doi: '10.1000/a' }), paper({ doi: 'https://doi.org/10.1000/A' })),
    ).toBe(false);
    expect(identifiersConflict(paper({ doi: '10.1000/a' }), paper({ identifiers: { acl: 'P19-1' } }))).toBe(
      false,
    );
    expect(
      identifiersConflict(
        paper({ patent_number: 'US 6,336,130 B1' }),
        paper({ identifiers: { patent_number: 'US6336130B1' } }),
      ),
    ).toBe(false);
  });
});

describe('peer-reviewed rule', () => {
  it('keeps journal articles, conference papers and granted patents only', () => {
    const reviewed = ['journal-article', 'conference-paper', 'patent'];
    for (const type of [
      'journal-article',
      'conference-paper',
      'patent',
      'preprint',
      'patent-application',
      'book',
      'thesis',
      'other',
      null,
    ]) {
      expect(isPeerReviewed({ type }), String(type)).toBe(reviewed.includes(String(type)));
    }
    expect(isPatent(paper({ type: 'other', patent_number: 'US1' }))).toBe(true);
    expect(isPatent(paper({ type: 'patent-application' }))).toBe(true);
    expect(isPatent(paper({ type: 'journal-article' }))).toBe(false);
  });
});
