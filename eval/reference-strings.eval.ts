import type { LabellerModel } from '../src/bibliography/reference-labeller.js';
import { parseReference } from '../src/bibliography/reference-parser.js';
import type { EvalReport } from './index.js';
import { type GoldReference, readGold } from './lib/anystyle-gold.js';
import {
  type FieldValues,
  fieldHits,
  goldValues,
  type ScoredField,
  scoredFields,
} from './lib/reference-string-score.js';
import { seededRandom } from './lib/resampling.js';

/** Issue 37's goal for reference strings. */
const goals = { meanAccuracy: 0.9, referencesPerSecond: 500 };

/**
 * The parser's values of the six scored fields. Volume is the span the parser labelled volume, as
 * printed: AnyStyle's gold labels volume and issue as one span ("12(3)", "vol. 21, no 12"), which
 * the parser then splits into CSL's volume and issue.
 */
export function predictedValues(raw: string, model?: LabellerModel): FieldValues {
  const parsed = parseReference(raw, model);
  return {
    author: parsed.authors.length > 0 ? parsed.authors.join(', ') : null,
    title: parsed.title,
    year: parsed.yearLabel,
    container: parsed.containerTitle,
    volume: parsed.spans.find((span) => span.label === 'volume')?.text ?? parsed.volume,
    pages: parsed.pages,
  };
}

/** 95% Wilson interval of a proportion. */
function wilson(hits: number, n: number): [number, number] {
  if (n === 0) return [0, 0];
  const z = 1.96;
  const p = hits / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [centre - half, centre + half];
}

/** 95% percentile bootstrap interval of the mean of `scores` (2,000 resamples, seed 48). */
function bootstrap(scores: readonly number[]): [number, number] {
  const random = seededRandom(48);
  const means: number[] = [];
  for (let r = 0; r < 2000; r += 1) {
    let sum = 0;
    for (let i = 0; i < scores.length; i += 1) sum += scores[Math.floor(random() * scores.length)] as number;
    means.push(sum / scores.length);
  }
  means.sort((a, b) => a - b);
  return [means[49] as number, means[1949] as number];
}

export interface StringScores {
  n: number;
  accuracy: Record<ScoredField, number>;
  interval: Record<ScoredField, [number, number]>;
  mean: number;
  meanInterval: [number, number];
  /** Per reference: the share of the six fields right. */
  perReference: number[];
}

export function scoreReferences(references: readonly GoldReference[], model?: LabellerModel): StringScores {
  const hits = Object.fromEntries(scoredFields.map((field) => [field, 0])) as Record<ScoredField, number>;
  const perReference = references.map((reference) => {
    const right = fieldHits(goldValues(reference), predictedValues(reference.text, model));
    let count = 0;
    for (const field of scoredFields) {
      if (right[field]) {
        hits[field] += 1;
        count += 1;
      }
    }
    return count / scoredFields.length;
  });
  const n = references.length;
  const accuracy = Object.fromEntries(scoredFields.map((field) => [field, hits[field] / n])) as Record<
    ScoredField,
    number
  >;
  const interval = Object.fromEntries(scoredFields.map((field) => [field, wilson(hits[field], n)])) as Record<
    ScoredField,
    [number, number]
  >;
  const mean = scoredFields.reduce((sum, field) => sum + accuracy[field], 0) / scoredFields.length;
  return { n, accuracy, interval, mean, meanInterval: bootstrap(perReference), perReference };
}

/** References parsed per second over `texts`: the best of three passes, after one to warm up. */
export function referencesPerSecond(texts: readonly string[]): number {
  for (const text of texts) parseReference(text);
  let best = 0;
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    for (const text of texts) parseReference(text);
    best = Math.max(best, texts.length / ((performance.now() - started) / 1000));
  }
  return best;
}

const range = ([low, high]: [number, number]) => `[${low.toFixed(3)}, ${high.toFixed(3)}]`;

/**
 * Issue 37's reference-string measurement (decision 0048): field accuracy of the one reference
 * parser on the reporting split of AnyStyle's labelled references, and its speed.
 */
export async function referenceStringsEval(): Promise<EvalReport> {
  const reporting = readGold().filter((reference) => reference.split === 'reporting');
  const scores = scoreReferences(reporting);
  const speed = referencesPerSecond(reporting.map((reference) => reference.text));
  const metrics: Record<string, number | string> = { 'strings n (reporting split)': scores.n };
  for (const field of scoredFields) {
    metrics[`strings ${field} accuracy`] = scores.accuracy[field];
    metrics[`strings ${field} 95% CI`] = range(scores.interval[field]);
  }
  metrics['strings mean accuracy'] = scores.mean;
  metrics['strings mean 95% CI'] = range(scores.meanInterval);
  metrics['strings references/s'] = Math.round(speed);
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  return {
    name: 'references (strings)',
    metrics,
    summary: [
      `mean field accuracy ${scores.mean.toFixed(3)} ${range(scores.meanInterval)} on ${scores.n} reporting-split references ≥ ${goals.meanAccuracy}: ${verdict(scores.mean >= goals.meanAccuracy)}`,
      `${Math.round(speed)} references/s ≥ ${goals.referencesPerSecond}: ${verdict(speed >= goals.referencesPerSecond)}`,
    ],
  };
}
