import type { EvalReport } from './index.js';
import {
  extractMetadata,
  loadExpectedMetadata,
  type MetadataFigures,
  type MetadataScore,
  scoreMetadata,
  summarize,
} from './lib/pdf-metadata-score.js';

/** Goals (decision 0028): every text-layer title right; authors, DOI and arXiv id nearly so. */
const goals: Array<[keyof MetadataFigures, number]> = [
  ['titleAccuracy', 1],
  ['authorF1', 0.95],
  ['doiAccuracy', 1],
  ['arxivAccuracy', 1],
];

/**
 * Title, author, DOI and arXiv-id accuracy of the metadata read from every shared PDF, against the
 * hand-written expectations in test/fixtures/pdf-metadata.json; figures for all PDFs and for those
 * with a text layer (the scan has none to read without OCR), and each PDF's misses.
 */
export async function pdfMetadataEval(_options: { quick: boolean }): Promise<EvalReport> {
  const scores: MetadataScore[] = [];
  for (const expected of loadExpectedMetadata()) {
    scores.push(scoreMetadata(expected, await extractMetadata(expected.file)));
  }
  const all = summarize(scores);
  const textLayer = summarize(scores.filter((score) => score.hasTextLayer));
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(all)) metrics[`all ${key}`] = value;
  for (const [key, value] of Object.entries(textLayer)) metrics[`text-layer ${key}`] = value;
  const summary = goals.map(([key, goal]) => {
    const value = textLayer[key];
    return `text-layer ${key} ${value.toFixed(3)} ≥ ${goal}: ${value >= goal ? 'met' : 'NOT met'}`;
  });
  for (const score of scores) {
    const misses = [
      score.title ? '' : `title "${score.actual.title ?? '(none)'}"`,
      score.authorsExact
        ? ''
        : `authors ${score.authorsFound}/${score.authorsExpected} found, ${score.authorsExtracted} extracted: ${JSON.stringify(score.actual.authors ?? [])}`,
      score.doi ? '' : `doi ${score.actual.doi ?? '(none)'}`,
      score.arxivId ? '' : `arXiv ${score.actual.arxivId ?? '(none)'}`,
    ].filter(Boolean);
    if (misses.length > 0) summary.push(`${score.file}: ${misses.join('; ')}`);
  }
  return { name: 'pdf-metadata', metrics, summary };
}
