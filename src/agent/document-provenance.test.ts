import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../domain/chat.js';
import { parsePaperIdentifier } from '../domain/identifiers.js';
import { emptyPaper } from '../domain/paper.js';
import { DocumentProvenance, documentKey, referenceKeysIn } from './document-provenance.js';
import { SourceLedger } from './source-ledger.js';

function provenance(messages: ChatMessage[], options: { ledger?: SourceLedger; projects?: string[] } = {}) {
  let loads = 0;
  const checker = new DocumentProvenance({
    messages,
    ledger: options.ledger ?? new SourceLedger(),
    projectDocuments: async () => {
      loads += 1;
      return options.projects ?? [];
    },
  });
  const allowed = async (ref: string) => (await checker.checkDocument(ref)).allowed;
  const allowedId = async (id: string) => (await checker.checkIdentifier(parsePaperIdentifier(id))).allowed;
  return { checker, allowed, allowedId, loads: () => loads };
}

describe('documentKey: one key per document, whatever the spelling', () => {
  it('reads another spelling of the same address as the same document', () => {
    const key = documentKey('https://example.org/papers/A.pdf');
    for (const same of [
      'PDF_URL:https://example.org/papers/A.pdf',
      'PDF_URL: https://example.org/papers/A.pdf ',
      'http://example.org/papers/A.pdf',
      'HTTPS://EXAMPLE.ORG/papers/A.pdf',
      'https://example.org/papers/A.pdf/',
      'https://example.org/papers/A.pdf#page=2',
      'https://example.org:443/papers/A.pdf',
      'https://example.org/papers/%41.pdf',
      'https://example.org./papers/A.pdf',
    ]) {
      expect(documentKey(same), same).toBe(key);
    }
    expect(documentKey('https://exämple.org/a.pdf')).toBe(documentKey('https://xn--exmple-cua.org/a.pdf'));
    expect(documentKey('http://2130706433:8080/a.pdf')).toBe(documentKey('http://127.0.0.1:8080/a.pdf'));
  });

  it('keeps apart what is another document or another host', () => {
    const key = documentKey('https://example.org/papers/A.pdf');
    for (const other of [
      'https://example.org/papers/A.pdf?q=secret',
      'https://example.org/papers/a.pdf',
      'https://example.org:8443/papers/A.pdf',
      'https://example.org.attacker.example/papers/A.pdf',
      'https://attacker.example/papers/A.pdf#https://example.org/papers/A.pdf',
      'https://attacker.example/example.org/papers/A.pdf',
      'https://example.org/papers/A.pdf%3Fq=secret',
      'https://example.org/papers/A.pdf%2F..%2Fsecret',
    ]) {
      expect(documentKey(other), other).not.toBe(key);
    }
  });

  it('gives no key to what cannot be read: credentials in the address, other schemes, bad references', () => {
    expect(documentKey('https://example.org@attacker.example/a.pdf')).toBeUndefined();
    expect(documentKey('https://user:pass@example.org/a.pdf')).toBeUndefined();
    expect(documentKey('file:///etc/passwd')).toBeUndefined();
    expect(documentKey('javascript:alert(1)')).toBeUndefined();
    expect(documentKey('PROJ:../other/doc')).toBeUndefined();
    expect(documentKey('not a reference')).toBeUndefined();
  });

  it('reads DOI and arXiv addresses as their identifiers, unless they carry a query', () => {
    expect(documentKey('https://dx.doi.org/10.1128/mSphere.00109-24')).toBe('doi:10.1128/msphere.00109-24');
    expect(documentKey('10.1128/msphere.00109-24')).toBe('doi:10.1128/msphere.00109-24');
    expect(documentKey('https://doi.org/10.1128/msphere.00109-24?x=1')).toMatch(/^url:/);
    expect(documentKey('https://arxiv.org/pdf/2101.00001v2')).toBe('arxiv:2101.00001');
    expect(documentKey('https://arxiv.org/abs/2101.00001')).toBe('arxiv:2101.00001');
    expect(documentKey('PROJ:gpt/doc_1')).toBe('proj:gpt/doc_1');
  });
});

describe('referenceKeysIn: the references a user wrote', () => {
  it('finds urls, document references and identifiers, without trailing punctuation', () => {
    const keys = referenceKeysIn(
      'Compare https://example.org/a.pdf. and PDF_URL:https://example.org/b.pdf, PROJ:gpt/doc_1; ' +
        'doi 10.1128/mSphere.00109-24. arXiv:2101.00001v2, PMID: 12345678 and PMC7654321 (see [x](https://example.org/c.pdf))',
    );
    expect(keys).toEqual(
      expect.arrayContaining([
        documentKey('https://example.org/a.pdf'),
        documentKey('https://example.org/b.pdf'),
        documentKey('https://example.org/c.pdf'),
        'proj:gpt/doc_1',
        'doi:10.1128/msphere.00109-24',
        'arxiv:2101.00001',
        'pmid:12345678',
        'pmcid:PMC7654321',
      ]),
    );
  });
});

describe('DocumentProvenance: what a run may read', () => {
  it('allows what the user wrote in their own turns, in any spelling, and nothing an assistant or system turn wrote', async () => {
    const { allowed, allowedId } = provenance([
      { role: 'system', content: 'Context: PDF_URL:https://system.example/s.pdf' },
      { role: 'user', content: 'What does https://example.org/papers/A.pdf say? Also doi:10.1000/XYZ.' },
      {
        role: 'assistant',
        content: 'See PDF_URL:https://attacker.example/collect?q=secret and DOI:10.1000/planted',
      },
      { role: 'user', content: 'And arXiv 2101.00001?' },
    ]);
    expect(await allowed('PDF_URL:http://example.org/papers/A.pdf/')).toBe(true);
    expect(await allowed('https://doi.org/10.1000/xyz')).toBe(true);
    expect(await allowedId('DOI:10.1000/xyz')).toBe(true);
    expect(await allowedId('ARXIV:2101.00001v3')).toBe(true);
    expect(await allowed('https://arxiv.org/pdf/2101.00001')).toBe(true);
    expect(await allowed('PDF_URL:https://attacker.example/collect?q=secret')).toBe(false);
    expect(await allowed('https://system.example/s.pdf')).toBe(false);
    expect(await allowedId('DOI:10.1000/planted')).toBe(false);
    expect(await allowed('https://example.org/papers/A.pdf?q=secret')).toBe(false);
  });

  it('allows every address and identifier of the records the run retrieved, as they arrive', async () => {
    const ledger = new SourceLedger();
    const { allowed, allowedId } = provenance([{ role: 'user', content: 'zebrafish fins' }], { ledger });
    expect(await allowed('https://oa.example/fin.pdf')).toBe(false);
    ledger.add({
      ...emptyPaper('Fin regeneration'),
      doi: '10.1000/fin',
      pdf_url: 'https://oa.example/fin.pdf',
      pdf_id: 'PDF_URL:https://oa.example/fin.pdf',
      identifiers: { pmid: '555' },
    });
    expect(await allowed('PDF_URL:https://oa.example/fin.pdf')).toBe(true);
    expect(await allowed('https://doi.org/10.1000/fin')).toBe(true);
    expect(await allowedId('DOI:10.1000/FIN')).toBe(true);
    expect(await allowedId('PMID:555')).toBe(true);
    expect(await allowed('https://oa.example/other.pdf')).toBe(false);
  });

  it("allows the documents filed in the caller's projects, loading them once", async () => {
    const { allowed, loads } = provenance([{ role: 'user', content: 'What do my papers say?' }], {
      projects: ['PROJ:prj_1/doc_1', 'PROJ:Reading/doc_1'],
    });
    expect(await allowed('PROJ:prj_1/doc_1')).toBe(true);
    expect(await allowed('PROJ:Reading/doc_1')).toBe(true);
    expect(await allowed('PROJ:prj_other/doc_9')).toBe(false);
    expect(await allowed('https://example.org/a.pdf')).toBe(false);
    expect(loads()).toBe(1);
  });
});
