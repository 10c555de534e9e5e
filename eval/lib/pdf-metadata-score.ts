import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';
import { nameKey } from '../../src/pdf/person-names.js';
import type { PdfMetadata } from '../../src/ports/pdf-extractor.js';
import { sharedData } from '../../test/helpers/requirements.js';

/**
 * Metadata accuracy over the shared PDFs against test/fixtures/pdf-metadata.json (hand-written
 * from each PDF's first page): title, authors, DOI and arXiv id. Shared by `npm run eval --
 * pdf-metadata` and test/integration/pdf-metadata.test.ts (decision 0028).
 */

export const sharedPdfs = join(sharedData, 'pdfs');
const fixture = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pdf-metadata.json');

export interface ExpectedMetadata {
  file: string;
  title: string;
  authors: string[];
  doi: string | null;
  arxivId: string | null;
  /** From the shared manifest: false for a scan without text. */
  hasTextLayer: boolean;
}

export interface MetadataScore {
  file: string;
  hasTextLayer: boolean;
  title: boolean;
  /** Expected authors found (by name, ignoring case, accents and punctuation). */
  authorsFound: number;
  authorsExpected: number;
  authorsExtracted: number;
  /** The whole list right, in order. */
  authorsExact: boolean;
  doi: boolean;
  arxivId: boolean;
  actual: PdfMetadata;
}

/** The fixture's entries, with the manifest's text-layer flag; every manifest PDF must be in it. */
export function loadExpectedMetadata(): ExpectedMetadata[] {
  const manifest = readFileSync(join(sharedPdfs, 'pdfs_manifest.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { file: string; has_text_layer: boolean });
  const entries = (
    JSON.parse(readFileSync(fixture, 'utf8')) as { pdfs: Omit<ExpectedMetadata, 'hasTextLayer'>[] }
  ).pdfs;
  return manifest.map((pdf) => {
    const entry = entries.find((candidate) => candidate.file === pdf.file);
    if (!entry) throw new Error(`${pdf.file} is in the shared manifest but not in ${fixture}`);
    return { ...entry, hasTextLayer: pdf.has_text_layer };
  });
}

/** The metadata the PDF pipeline reads from one shared PDF (images off: metadata does not use them). */
export async function extractMetadata(file: string): Promise<PdfMetadata> {
  const bytes = new Uint8Array(readFileSync(join(sharedPdfs, file)));
  return (await parseDocument(bytes, { ...defaultParseOptions, images: false })).metadata;
}

const titleKey = (title: string) =>
  title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

export function scoreMetadata(expected: ExpectedMetadata, actual: PdfMetadata): MetadataScore {
  const extracted = (actual.authors ?? []).map(nameKey);
  const wanted = expected.authors.map(nameKey);
  const remaining = [...extracted];
  let found = 0;
  for (const name of wanted) {
    const at = remaining.indexOf(name);
    if (at >= 0) {
      found++;
      remaining.splice(at, 1);
    }
  }
  return {
    file: expected.file,
    hasTextLayer: expected.hasTextLayer,
    title: actual.title !== undefined && titleKey(actual.title) === titleKey(expected.title),
    authorsFound: found,
    authorsExpected: wanted.length,
    authorsExtracted: extracted.length,
    authorsExact:
      wanted.length === extracted.length && wanted.every((name, index) => extracted[index] === name),
    doi: (actual.doi?.toLowerCase() ?? null) === (expected.doi?.toLowerCase() ?? null),
    arxivId: (actual.arxivId ?? null) === expected.arxivId,
    actual,
  };
}

export interface MetadataFigures {
  pdfs: number;
  titleAccuracy: number;
  /** Expected authors found, over all expected authors (micro recall). */
  authorRecall: number;
  /** Extracted authors that are right, over all extracted (micro precision). */
  authorPrecision: number;
  authorF1: number;
  /** PDFs whose author list is exactly right, in order. */
  authorListAccuracy: number;
  /** PDFs whose DOI is right (the printed one, or none when none is printed). */
  doiAccuracy: number;
  arxivAccuracy: number;
}

export function summarize(scores: MetadataScore[]): MetadataFigures {
  const count = scores.length || 1;
  const share = (test: (score: MetadataScore) => boolean) => scores.filter(test).length / count;
  const found = scores.reduce((sum, score) => sum + score.authorsFound, 0);
  const expected = scores.reduce((sum, score) => sum + score.authorsExpected, 0);
  const extracted = scores.reduce((sum, score) => sum + score.authorsExtracted, 0);
  const recall = expected > 0 ? found / expected : 0;
  const precision = extracted > 0 ? found / extracted : 0;
  return {
    pdfs: scores.length,
    titleAccuracy: share((score) => score.title),
    authorRecall: recall,
    authorPrecision: precision,
    authorF1: recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0,
    authorListAccuracy: share((score) => score.authorsExact),
    doiAccuracy: share((score) => score.doi),
    arxivAccuracy: share((score) => score.arxivId),
  };
}
