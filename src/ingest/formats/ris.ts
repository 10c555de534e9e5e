import type { FormatReader, IngestItem } from '../ingest-item.js';
import { parseBatch, parseRawEntries, rawEntryToCsl } from './citation-parser.js';
import { mapCslItem } from './csl-item.js';
import { cleanText } from './paper-builder.js';
import { batchEntries, splitEntries, type TextEntry } from './text-entries.js';

type RawRisRecord = Record<string, string | string[]>;

/**
 * RIS (EndNote, Zotero, PubMed, Scopus exports), parsed by citation-js one bounded batch of records
 * at a time. Records are split at `TY  -` and `ER  -` lines. Beyond CSL, the raw tags give the PDF
 * link (`L1` when it is a web url) and PubMed's accession number (`AN` with `DB  - PubMed`).
 */
export const readRis: FormatReader = async function* (input) {
  const records = splitEntries(input, {
    isStart: (line) => /^TY {2}- /.test(line.replace(/^\uFEFF/, '')),
    isEnd: (line) => /^ER {2}-/.test(line),
  });
  for await (const batch of batchEntries(records)) {
    yield* parseBatch<RawRisRecord>(
      batch,
      (text) => parseRawEntries(text, '@ris/file') as RawRisRecord[],
      mapRecord,
    );
  }
};

function first(value: string | string[] | undefined): string | null {
  return cleanText(Array.isArray(value) ? value[0] : value);
}

function mapRecord(raw: RawRisRecord, entry: TextEntry): IngestItem {
  const location = `line ${entry.line}`;
  const item = rawEntryToCsl(raw, '@ris/record');
  const pdfLink = [raw.L1 ?? []]
    .flat()
    .map(cleanText)
    .find((link) => link && /^https?:\/\//i.test(link));
  const pubmed = /pubmed/i.test(first(raw.DB) ?? '') ? first(raw.AN) : null;
  const paper = mapCslItem(item, 'ris', (draft) => {
    if (pdfLink) draft.pdf_url ??= pdfLink;
    if (pubmed) draft.identifiers = { ...draft.identifiers, pmid: draft.identifiers?.pmid ?? pubmed };
    if (first(raw.TY) === 'UNPB' || /arxiv|biorxiv|medrxiv/i.test(draft.venue ?? '')) draft.type = 'preprint';
  });
  return typeof paper === 'string' ? { ok: false, reason: paper, location } : { ok: true, paper, location };
}
