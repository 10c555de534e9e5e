import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultParseOptions, parseDocument } from '../../src/pdf/parse-document.js';
import { nameKey } from '../../src/pdf/person-names.js';
import type { PdfMetadata } from '../../src/ports/pdf-extractor.js';
import { sharedData } from '../../test/helpers/requirements.js';

/**
 * Metadata accuracy over the shared PDFs against test/fixtures/pdf-metadata.json (hand-written
 * from each PDF's first page): title, authors, DOI and arXiv id (decision 0028); the printed year,
 * the abstract and the figures' printed labels (decision 0050). Shared by `npm run eval --
 * pdf-metadata`, test/integration/pdf-metadata.test.ts and pdf-as-printed.test.ts.
 */

export const sharedPdfs = join(sharedData, 'pdfs');
const fixture = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'pdf-metadata.json');

export interface ExpectedMetadata {
  file: string;
  title: string;
  authors: string[];
  doi: string | null;
  arxivId: string | null;
  /** The year the PDF prints as its own; null when it prints none. */
  year: number | null;
  /** The opening and closing words of the printed abstract; null when none is printed. */
  abstract: { start: string; end: string } | null;
  /** Each extracted figure's printed label, in extraction order (null: no caption). */
  figureLabels: Array<string | null>;
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
  year: boolean;
  /** The abstract found with the printed opening and closing words, or none found when none is printed. */
  abstract: boolean;
  /** Figures whose label is the expected one (by position), and the figures expected. */
  figureLabelsRight: number;
  figureLabelsExpected: number;
  actual: PdfMetadata;
  /** The labels read (undefined: figures were not extracted). */
  actualFigureLabels?: Array<string | null>;
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

/** The metadata and the figures' labels (null where none) of one shared PDF, images on. */
export async function extractAsPrinted(
  file: string,
): Promise<{ metadata: PdfMetadata; figureLabels: Array<string | null> }> {
  const bytes = new Uint8Array(readFileSync(join(sharedPdfs, file)));
  const parsed = await parseDocument(bytes, defaultParseOptions);
  return {
    metadata: parsed.metadata,
    figureLabels: parsed.figures.map((figure) => figure.label ?? null),
  };
}

/** Letters only, lower case: what the printed abstract and the read one are compared by. */
const letterKey = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}]/gu, '');

function abstractRight(expected: ExpectedMetadata['abstract'], actual: string | undefined): boolean {
  if (!expected) return actual === undefined;
  if (!actual) return false;
  const text = letterKey(actual);
  return text.startsWith(letterKey(expected.start)) && text.endsWith(letterKey(expected.end));
}

const titleKey = (title: string) =>
  title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

export function scoreMetadata(
  expected: ExpectedMetadata,
  actual: PdfMetadata,
  figureLabels?: Array<string | null>,
): MetadataScore {
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
    year: (actual.year ?? null) === expected.year,
    abstract: abstractRight(expected.abstract, actual.abstract),
    figureLabelsRight: expected.figureLabels.filter((label, at) => figureLabels?.[at] === label).length,
    figureLabelsExpected: expected.figureLabels.length,
    actual,
    ...(figureLabels ? { actualFigureLabels: figureLabels } : {}),
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
  /** PDFs whose year is the printed one (or none when none is printed). */
  yearAccuracy: number;
  /** PDFs whose abstract is the printed one (or none when none is printed). */
  abstractAccuracy: number;
  /** Figures whose label is the one their caption prints, over all expected figures. */
  figureLabelAccuracy: number;
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 1);

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
    yearAccuracy: share((score) => score.year),
    abstractAccuracy: share((score) => score.abstract),
    figureLabelAccuracy: ratio(
      scores.reduce((sum, score) => sum + score.figureLabelsRight, 0),
      scores.reduce((sum, score) => sum + score.figureLabelsExpected, 0),
    ),
  };
}
