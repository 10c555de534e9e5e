import type { EvalReport } from './index.js';
import {
  extractAsPrinted,
  loadExpectedMetadata,
  type MetadataFigures,
  type MetadataScore,
  scoreMetadata,
  summarize,
} from './lib/pdf-metadata-score.js';

/**
 * Goals: every text-layer title right; authors, DOI and arXiv id nearly so (decision 0028); the
 * printed year, the printed abstract and every figure's printed label (decision 0050).
 */
const goals: Array<[keyof MetadataFigures, number]> = [
  ['titleAccuracy', 1],
  ['authorF1', 0.95],
  ['doiAccuracy', 1],
  ['arxivAccuracy', 1],
  ['yearAccuracy', 1],
  ['abstractAccuracy', 1],
  ['figureLabelAccuracy', 1],
];

/**
 * Title, author, DOI, arXiv-id, year and abstract accuracy of the metadata read from every shared
 * PDF, and its figures' labels, against the hand-written expectations in
 * test/fixtures/pdf-metadata.json; figures for all PDFs and for those with a text layer (the scan
 * has none to read without OCR), and each PDF's misses.
 */
export async function pdfMetadataEval(_options: { quick: boolean }): Promise<EvalReport> {
  const scores: MetadataScore[] = [];
  for (const expected of loadExpectedMetadata()) {
    const { metadata, figureLabels } = await extractAsPrinted(expected.file);
    scores.push(scoreMetadata(expected, metadata, figureLabels));
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
      score.year ? '' : `year ${score.actual.year ?? '(none)'}`,
      score.abstract ? '' : `abstract ${JSON.stringify(shorten(score.actual.abstract))}`,
      score.figureLabelsRight === score.figureLabelsExpected
        ? ''
        : `figure labels ${JSON.stringify(score.actualFigureLabels ?? [])}`,
    ].filter(Boolean);
    if (misses.length > 0) summary.push(`${score.file}: ${misses.join('; ')}`);
  }
  return { name: 'pdf-metadata', metrics, summary };
}

/** The first and last words of a long text, for a miss line. */
function shorten(text: string | undefined): string {
  if (text === undefined) return '(none)';
  return text.length <= 120 ? text : `${text.slice(0, 60)} … ${text.slice(-60)}`;
}
