import { describe, expect, it } from 'vitest';
import { emptyPaper, type Paper } from '../domain/paper.js';
import { CitationAttacher } from './citation-attacher.js';
import { auditCitations } from './citation-audit.js';
import { SourceLedger } from './source-ledger.js';

const paper = (fields: Partial<Paper> & { title: string }): Paper => ({
  ...emptyPaper(fields.title),
  ...fields,
});

function ledgerOf() {
  const ledger = new SourceLedger();
  const biofilm = ledger.add(
    paper({ title: 'Biofilms', authors: ['Ann Lee'], year: 2020, url: 'https://example.org/biofilm' }),
  );
  const persisters = ledger.add(
    paper({
      title: 'Persisters',
      authors: ['Bo Kim', 'Cy Park'],
      year: 2021,
      url: 'https://example.org/persist',
    }),
  );
  ledger.addEvidence({
    source: biofilm,
    kind: 'abstract',
    text: 'Pseudomonas aeruginosa biofilms tolerate antibiotics because the matrix slows their penetration. We grew biofilms in flow cells.',
  });
  ledger.addEvidence({
    source: persisters,
    kind: 'abstract',
    text: 'Persister cells survive antibiotic treatment in a dormant state. Dormant persister cells resume growth after treatment ends.',
  });
  return ledger;
}

const stream = (attacher: CitationAttacher, chunks: string[]) =>
  chunks.map((chunk) => attacher.push(chunk)).join('') + attacher.end();

describe('citation attacher', () => {
  it('cites each uncited statement by the retrieved sentence sharing most of its terms, before its period', () => {
    const ledger = ledgerOf();
    const attacher = new CitationAttacher(ledger);
    const answer = stream(attacher, [
      'Biofilms of Pseudomonas aeruginosa tolerate antibiotics because their matrix slows ',
      'penetration. Dormant persister cells also survive antibiotic treatment!\n\nThat is all.',
    ]);
    expect(answer).toBe(
      'Biofilms of Pseudomonas aeruginosa tolerate antibiotics because their matrix slows penetration [Lee, 2020](https://example.org/biofilm). Dormant persister cells also survive antibiotic treatment [Kim and Park, 2021](https://example.org/persist)!\n\nThat is all.',
    );
    expect(attacher.attached).toBe(2);
    expect(auditCitations(answer, ledger)).toEqual([]);
  });

  it('leaves sentences that already cite, and statements no retrieved sentence supports', () => {
    const ledger = ledgerOf();
    const attacher = new CitationAttacher(ledger);
    const cited =
      'Biofilms tolerate antibiotics [Lee, 2020](https://example.org/biofilm). Persister cells are dormant (Kim and Park, 2021). ';
    const unsupported =
      'Quantum computers factor large integers quickly. Antibiotics were discovered long ago.';
    expect(stream(attacher, [cited, unsupported])).toBe(cited + unsupported);
    expect(attacher.attached).toBe(0);
  });

  it('streams as it comes, holding back only a sentence end, and does not cut after "et al."', () => {
    const attacher = new CitationAttacher(ledgerOf());
    expect(attacher.push('Persister cells survive antibiotic treatment in a dormant')).toBe(
      'Persister cells survive antibiotic treatment in a dormant',
    );
    expect(attacher.push(' state (Kim et al. ')).toBe(' state (Kim et al');
    expect(attacher.push('2021). Dormant persister cells resume growth after treatment')).toBe(
      '. 2021). Dormant persister cells resume growth after treatment',
    );
    // The citation goes before the held period, after text already sent.
    expect(attacher.push(' ends.')).toBe(' ends');
    expect(attacher.end()).toBe(' [Kim and Park, 2021](https://example.org/persist).');
  });

  it('passes text through once it holds more than its limit without a sentence end', () => {
    const attacher = new CitationAttacher(ledgerOf(), { maxHold: 20 });
    expect(attacher.push('a very long fragment without any end')).toBe(
      'a very long fragment without any end',
    );
  });

  it("cites a statement that restates the record's title, or joins two of its adjacent sentences", () => {
    const ledger = new SourceLedger();
    const trial = ledger.add(
      paper({
        title: 'Regional versus general anaesthesia for hip fracture surgery in older patients',
        authors: ['Dee Moss'],
        year: 2012,
        url: 'https://example.org/hip',
      }),
    );
    ledger.addEvidence({
      source: trial,
      kind: 'abstract',
      text: 'We reviewed 9,000 operations. Mortality at 30 days was similar. Costs were lower with regional anaesthesia. Complications were rare.',
    });
    const attacher = new CitationAttacher(ledger);
    const title = attacher.push(
      'The study of regional versus general anaesthesia for hip fracture surgery in older patients found similar outcomes. ',
    );
    expect(title).toContain('[Moss, 2012](https://example.org/hip).');
    const joined = stream(new CitationAttacher(ledger), [
      'Mortality at 30 days was similar, while costs were clearly lower with regional anaesthesia.',
    ]);
    expect(joined).toContain('[Moss, 2012](https://example.org/hip).');
    // Two sentences that are not adjacent in the record do not join.
    const apart = stream(new CitationAttacher(ledger), [
      'We reviewed operations where complications were rare.',
    ]);
    expect(apart).toBe('We reviewed operations where complications were rare.');
  });

  it('never cites what the run did not retrieve: an empty ledger attaches nothing', () => {
    const attacher = new CitationAttacher(new SourceLedger());
    const text = 'Pseudomonas aeruginosa biofilms tolerate antibiotics. ';
    expect(stream(attacher, [text])).toBe(text);
  });
  it('keeps a quoted passage of several sentences whole: no citation inside the quotation marks', () => {
    const ledger = ledgerOf();
    const attacher = new CitationAttacher(ledger);
    const answer = stream(attacher, [
      'The study reports that "Persister cells survive antibiotic treatment in a dormant state. Dormant persister ',
      'cells resume growth after treatment ends." Biofilms of Pseudomonas aeruginosa tolerate antibiotics because their matrix slows penetration.',
    ]);
    expect(answer).toBe(
      'The study reports that "Persister cells survive antibiotic treatment in a dormant state. Dormant persister cells resume growth after treatment ends" [Kim and Park, 2021](https://example.org/persist). Biofilms of Pseudomonas aeruginosa tolerate antibiotics because their matrix slows penetration [Lee, 2020](https://example.org/biofilm).',
    );
    expect(auditCitations(answer, ledger)).toEqual([]);
    // A quotation that never closes holds no more than a paragraph: the next line is cited as usual.
    const open = new CitationAttacher(ledger);
    expect(
      stream(open, [
        'It says "Persister cells survive antibiotic treatment in a dormant state.\n\nDormant persister cells resume growth after treatment ends. Fine.',
      ]),
    ).toContain('treatment ends [Kim and Park, 2021](https://example.org/persist). Fine.');
  });
});
