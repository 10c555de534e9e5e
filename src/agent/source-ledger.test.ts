import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../domain/paper.js';
import { ReferencesGuard } from './references-guard.js';
import { citationLabel, citationUrl, SourceLedger, urlKey } from './source-ledger.js';

const paper = (fields: Partial<Paper> & { title: string }): Paper => ({
  ...emptyPaper(fields.title),
  ...fields,
});

describe('citation labels and urls', () => {
  it('names one, two and more authors, surname-first forms included, and falls back to the title', () => {
    expect(citationLabel(paper({ title: 'A', authors: ['Claude E. Shannon'], year: 1948 }))).toBe(
      'Shannon, 1948',
    );
    expect(
      citationLabel(paper({ title: 'A', authors: ['Okasaki, Chris', 'Jane Roe Jr.'], year: 1996 })),
    ).toBe('Okasaki and Roe, 1996');
    expect(
      citationLabel(paper({ title: 'A', authors: ['A B', 'C D', 'E F'], publication_date: '2021-03-01' })),
    ).toBe('B et al., 2021');
    expect(citationLabel(paper({ title: 'Purely functional data structures in depth' }))).toBe(
      'Purely functional data structures…, n.d.',
    );
  });

  it('links the url, else the DOI, else a landing page from an identifier, else the document', () => {
    expect(citationUrl(paper({ title: 'A', doi: '10.1000/XYZ' }))).toBe('https://doi.org/10.1000/xyz');
    expect(citationUrl(paper({ title: 'A', identifiers: { arxiv: '2304.02623v1' } }))).toBe(
      'https://arxiv.org/abs/2304.02623',
    );
    expect(
      citationUrl(
        paper({ title: 'A', pdf_id: 'PROJ:gpt/doc_1' }),
        (ref) => `http://svc/api/fulltext?pdf_id=${ref}`,
      ),
    ).toBe('http://svc/api/fulltext?pdf_id=PROJ:gpt/doc_1');
    expect(citationUrl(paper({ title: 'A' }))).toBeNull();
  });

  it('compares urls by what they point at', () => {
    expect(urlKey('http://dx.doi.org/10.1186/S13059-023-02935-8/')).toBe(
      urlKey('https://doi.org/10.1186/s13059-023-02935-8'),
    );
    expect(urlKey('https://www.aclanthology.org/P19-1001/#abstract')).toBe(
      urlKey('http://aclanthology.org/P19-1001'),
    );
    expect(urlKey('javascript:alert(1)')).toBeUndefined();
  });
});

describe('SourceLedger', () => {
  it('merges the same paper met twice and tells same-looking labels apart', () => {
    const ledger = new SourceLedger();
    const first = ledger.add(paper({ title: 'One', authors: ['Ann Lee'], year: 2020, doi: '10.1000/one' }));
    const again = ledger.add(
      paper({
        title: 'One (preprint)',
        authors: ['Ann Lee'],
        year: 2020,
        doi: '10.1000/ONE',
        pdf_id: 'PROJ:p/d',
      }),
    );
    const other = ledger.add(paper({ title: 'Two', authors: ['Ann Lee'], year: 2020, doi: '10.1000/two' }));
    expect(again).toBe(first);
    expect(first.paper.pdf_id).toBe('PROJ:p/d');
    expect([first.label, other.label]).toEqual(['Lee, 2020', 'Lee, 2020b']);
    expect(ledger.findByAuthorYear('Lee 2020b')).toBe(other);
    expect(ledger.findByUrl('https://doi.org/10.1000/one')).toBe(first);
    expect(ledger.findByDocument('PROJ:p/d')).toBe(first);
    expect(ledger.size).toBe(2);
  });
});

describe('ReferencesGuard', () => {
  it('drops a references section the model writes, whatever the chunking', () => {
    const text = 'Answer with a claim.\n\n**References:**\n1. Made-up paper (2020)\n';
    for (const size of [1, 3, 7, text.length]) {
      const guard = new ReferencesGuard();
      let output = '';
      for (let start = 0; start < text.length; start += size)
        output += guard.push(text.slice(start, start + size));
      output += guard.end();
      expect(output).toBe('Answer with a claim.\n\n');
      expect(guard.dropped).toBe(true);
    }
  });

  it('keeps a line that only starts like a heading', () => {
    const guard = new ReferencesGuard();
    const text = 'Sources of error include noise.\nReferences are appended below.';
    expect(guard.push(text) + guard.end()).toBe(text);
  });
});
