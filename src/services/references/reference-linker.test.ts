import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlitePaperIndex } from '../../adapters/sqlite/sqlite-paper-index.js';
import { readReferenceFields } from '../../bibliography/reference-fields.js';
import type { ReferenceEntry } from '../../bibliography/references.js';
import { emptyPaper, type Paper } from '../../domain/paper.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import { titleAppearsIn, titleSimilarity, withoutInnerHyphens } from './record-matching.js';
import { ReferenceLinker } from './reference-linker.js';

const paper = (title: string, authors: string[], year: number): Paper => ({
  ...emptyPaper(title),
  authors,
  year,
  publication_date: String(year),
});

/** A printed reference read as the PDF pipeline reads it. */
const entry = (raw: string): ReferenceEntry => ({
  number: null,
  label: null,
  raw,
  chunk: 1,
  ...readReferenceFields(raw),
});

describe('titles in both forms (decision 0050)', () => {
  it('closes up hyphens inside words, and only there', () => {
    expect(withoutInnerHyphens('SciB-ERT: A pre-trained model, 2008–2023 - v2')).toBe(
      'SciBERT: A pretrained model, 2008–2023 - v2',
    );
  });

  it('compares a title broken at a line end with the record as written', () => {
    const printed = 'SciB-ERT: A pretrained language model for scientific text';
    const record = 'SciBERT: A Pretrained Language Model for Scientific Text';
    expect(titleSimilarity(printed, record)).toBe(1);
    expect(titleAppearsIn(record, `Iz Beltagy. 2019. ${printed}. In EMNLP.`)).toBe(true);
    // A hyphen the record has and the reference lost still compares as before.
    expect(titleSimilarity('Multi-LexSum: real-world summaries', 'Multi-LexSum: Real-World Summaries')).toBe(
      1,
    );
  });
});

describe('ReferenceLinker against a real SQLite index', () => {
  const folder = mkdtempSync(join(tmpdir(), 'alexandria-linker-'));
  let index: PaperIndex & { close(): Promise<void> };

  beforeAll(async () => {
    index = await createSqlitePaperIndex(join(folder, 'index.db'));
    await index.upsert([
      paper(
        'SciBERT: A Pretrained Language Model for Scientific Text',
        ['Iz Beltagy', 'Kyle Lo', 'Arman Cohan'],
        2019,
      ),
      paper('BioBERT: a pre-trained biomedical language representation model', ['Jinhyuk Lee'], 2020),
      paper('Pretrained language models for scientific text mining', ['Jane Roe'], 2021),
    ]);
  });

  afterAll(async () => {
    await index.close();
    rmSync(folder, { recursive: true, force: true });
  });

  // Regression: PaperMage's reference "SciB-ERT: A pretrained language model…" never linked to SciBERT.
  it('links a reference whose title kept a line-end hyphen to the record without it', async () => {
    const reference = entry(
      'Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciB-ERT: A pretrained language model for scientific text. In Proceedings of EMNLP-IJCNLP, pages 3615–3620.',
    );
    expect(reference.title).toBe('SciB-ERT: A pretrained language model for scientific text');
    const link = await new ReferenceLinker(index).link(reference);
    expect(link?.paper.title).toBe('SciBERT: A Pretrained Language Model for Scientific Text');
    expect(link?.method).toBe('search');
    expect(link?.confidence).toBeGreaterThanOrEqual(0.9);
  });

  // Regression: "Grobid. 2008–2023. Grobid." took "2008–2023" as its title.
  it('reads a software citation dated by a range of years: the title is the name after it', () => {
    const software = entry('Grobid. 2008–2023. Grobid. https://github.com/kermitt2/grobid.');
    expect(software.title).toBe('Grobid');
    expect(software.year).toBe(2008);
    expect(software.authors).toEqual(['Grobid']);
    // A range after the year is pages, as before.
    expect(entry('Smith J. 2019. A title. Proc. ACL, 1990–2001. Springer.').year).toBe(2019);
  });
});
