// The measurement behind decision 0063: the citation-support judge on SciFact. Each claim with
// evidence is a sentence an answer writes; the five abstracts BM25 ranks first for it are what a run
// retrieved, each a candidate citation of the sentence; a candidate is right when it is one of the
// claim's gold evidence abstracts. Claims whose gold abstract is not among the five are left out (the
// run did not retrieve the evidence). Split fixed in advance: even claim ids tune, odd ids report.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  CitationSupport,
  passageSentences,
  type SupportSettings,
  supportScore,
  supportSettings,
  termShare,
} from '../src/agent/citation-support.js';
import { Bm25Index } from '../src/text/bm25.js';
import { contentTerms } from '../src/text/keywords.js';
import type { MemoEmbeddingModel } from './lib/memo-embedding-model.js';
import { wilson } from './verdict-classifier.eval.js';

const scifact = join(import.meta.dirname, '..', '..', 'shared', 'data', 'eval', 'scifact');
/** Abstracts a run retrieved for a claim (the candidates of its citation). */
const retrieved = 5;
/** The choice rule on the tuning split: the highest recall whose precision is at least this. */
const tuningPrecision = 0.92;
const goal = 0.9;

interface Candidate {
  claimId: number;
  gold: boolean;
  cosine: number;
  share: number;
  /** The shipped judge's decision. */
  kept: boolean;
}

export interface GoldCitationResult {
  metrics: Record<string, number | string>;
  summary: string[];
}

export async function goldCitationEval(model: MemoEmbeddingModel): Promise<GoldCitationResult> {
  const documents: Array<{ id: string; passage: string; terms: string[] }> = [];
  for (const line of gunzipSync(readFileSync(join(scifact, 'corpus.jsonl.gz')))
    .toString('utf8')
    .split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    const passage = `${record.title}\n${record.text}`;
    documents.push({ id: record._id, passage, terms: contentTerms(passage) });
  }
  const claims: Array<{ id: number; text: string; gold: Set<string> }> = [];
  for (const line of readFileSync(join(scifact, 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const claim = JSON.parse(line) as { _id: string; text: string; evidence: Record<string, unknown> };
    const gold = new Set(Object.keys(claim.evidence));
    if (gold.size > 0) claims.push({ id: Number(claim._id), text: claim.text, gold });
  }
  // The one in-memory BM25 (decision 0057), Pyserini's k1 0.9 and b 0.4, over the same terms.
  const bm25 = Bm25Index.ofTerms(
    documents.map((document) => document.terms),
    { k1: 0.9, b: 0.4 },
    contentTerms,
  );
  const runs = claims.map((claim) => {
    const scores = bm25.scoreTerms(contentTerms(claim.text));
    const top = [...scores.keys()]
      .filter((index) => (scores[index] as number) > 0)
      .sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b)
      .slice(0, retrieved);
    return { claim, top: top.map((index) => documents[index] as (typeof documents)[0]) };
  });
  const withEvidence = runs.filter((run) => run.top.some((document) => run.claim.gold.has(document.id)));

  // Embed every text once, in large batches, under the keys the judge asks for (query / document).
  const claimTexts = [...new Set(withEvidence.map((run) => run.claim.text))];
  const sentences = [
    ...new Set(
      withEvidence.flatMap((run) => run.top.flatMap((document) => passageSentences(document.passage))),
    ),
  ];
  for (const [texts, inputType] of [
    [claimTexts, 'query'],
    [sentences, 'document'],
  ] as const) {
    for (let start = 0; start < texts.length; start += 128)
      await model.embed(texts.slice(start, start + 128), { inputType });
  }
  model.save();
  const judge = new CitationSupport(model);
  const candidates: Candidate[] = [];
  for (const run of withEvidence) {
    for (const document of run.top) {
      // As the agent judges a citation: the cited passage against the run's other records.
      const others = run.top.filter((other) => other !== document).map((other) => other.passage);
      const judged = await judge.judge(run.claim.text, document.passage, others);
      if (judged.lexicalOnly) throw new Error('the embedding model failed during the evaluation');
      candidates.push({
        claimId: run.claim.id,
        gold: run.claim.gold.has(document.id),
        cosine: judged.cosine ?? 0,
        share: termShare(run.claim.text, document.passage),
        kept: judged.supported,
      });
    }
  }
  const tuning = candidates.filter((candidate) => candidate.claimId % 2 === 0);
  const reporting = candidates.filter((candidate) => candidate.claimId % 2 === 1);
  const chosen = choose(tuning);
  const lexical = chooseLexical(tuning);
  const shipped: SupportSettings = supportSettings;
  const score = (candidate: Candidate) => supportScore(candidate.cosine, candidate.share, shipped);
  const relative = relativeRule(tuning, reporting, score);
  const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;
  const matches =
    same(chosen.cosineWeight, shipped.cosineWeight) &&
    same(relative.threshold, shipped.threshold) &&
    same(relative.margin, shipped.margin) &&
    same(lexical, shipped.lexicalThreshold);
  const firstDesign = measure(reporting, (candidate) => score(candidate) >= chosen.threshold);
  const [firstLow, firstHigh] = wilson(firstDesign.goldKept, firstDesign.kept);
  const tuned = measure(tuning, (candidate) => candidate.kept);
  const report = measure(reporting, (candidate) => candidate.kept);
  const lexicalReport = measure(reporting, (candidate) => candidate.share >= shipped.lexicalThreshold);
  const gold = reporting.filter((candidate) => candidate.gold);
  const other = reporting.filter((candidate) => !candidate.gold);
  const aucOf = (value: (candidate: Candidate) => number) => auc(gold.map(value), other.map(value));
  const reportingClaims = new Set(reporting.map((candidate) => candidate.claimId)).size;
  const tuningClaims = new Set(tuning.map((candidate) => candidate.claimId)).size;
  const [low, high] = wilson(report.goldKept, report.kept);
  const [lexicalLow, lexicalHigh] = wilson(lexicalReport.goldKept, lexicalReport.kept);
  const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
  return {
    metrics: {
      'gold citation precision': report.precision,
      'gold citation precision low': low,
      'gold citation precision high': high,
      'gold citation recall': report.recall,
      'gold citation AUC': aucOf(score),
      'lexical-only precision': lexicalReport.precision,
      'lexical-only recall': lexicalReport.recall,
    },
    summary: [
      `gold citations (decision 0063): ${claims.length} SciFact claims with evidence; BM25's top ${retrieved} abstracts hold a gold one for ${withEvidence.length}; tuning split (even ids) ${tuningClaims} claims / ${tuning.length} candidate citations, reporting split (odd ids) ${reportingClaims} claims / ${reporting.length} candidates (${gold.length} gold)`,
      `tuning choice (highest recall at precision >= ${tuningPrecision}): cosine weight ${chosen.cosineWeight.toFixed(1)}; the cited record's score >= ${relative.threshold.toFixed(3)} and at most ${relative.margin} below the best of the run's other records; lexical-only threshold ${lexical.toFixed(3)}; on tuning precision ${percent(tuned.precision)}, recall ${percent(tuned.recall)}; the shipped settings (src/agent/citation-support.ts) ${matches ? 'are this choice' : `DIFFER: weight ${shipped.cosineWeight}, threshold ${shipped.threshold}, margin ${shipped.margin}, lexical ${shipped.lexicalThreshold}`}`,
      `reporting split, shipped judge (${model.id}): kept ${report.kept} of ${reporting.length} candidate citations; precision ${percent(report.precision)} (95% ${percent(low)}-${percent(high)}), recall of gold citations ${percent(report.recall)} (${report.goldKept}/${gold.length}); AUC gold over retrieved non-gold: combined ${aucOf(score).toFixed(3)}, cosine ${aucOf((candidate) => candidate.cosine).toFixed(3)}, word share ${aucOf((candidate) => candidate.share).toFixed(3)}`,
      `reporting split, lexical fallback (no embedding model): precision ${percent(lexicalReport.precision)} (95% ${percent(lexicalLow)}-${percent(lexicalHigh)}), recall ${percent(lexicalReport.recall)}; without any check ${percent(gold.length / Math.max(1, reporting.length))} of candidate citations are gold`,
      `first design (the score alone, threshold ${chosen.threshold.toFixed(3)} chosen on tuning; replaced after its reporting figure was seen): reporting precision ${percent(firstDesign.precision)} (95% ${percent(firstLow)}-${percent(firstHigh)}), recall ${percent(firstDesign.recall)}`,
      `>= ${100 * goal}% of kept cited passages are gold evidence: ${report.precision >= goal ? 'met' : 'NOT met'} (${percent(report.precision)}, reporting split)`,
    ],
  };
}

/**
 * A rule that looks at the other retrieved records too: a candidate is kept when its score reaches the
 * threshold and is at most `margin` below the best score of the same claim's other candidates.
 */
function relativeRule(tuning: Candidate[], reporting: Candidate[], score: (candidate: Candidate) => number) {
  const bestOther = (candidates: Candidate[]) => {
    const best = new Map<Candidate, number>();
    for (const candidate of candidates) {
      let top = Number.NEGATIVE_INFINITY;
      for (const other of candidates)
        if (other !== candidate && other.claimId === candidate.claimId) top = Math.max(top, score(other));
      best.set(candidate, top);
    }
    return best;
  };
  const tuningBest = bestOther(tuning);
  let chosen = { threshold: Number.POSITIVE_INFINITY, margin: 0, recall: -1 };
  for (const margin of [0, 0.02, 0.05, 0.1, 0.2]) {
    const eligible = (candidate: Candidate) => score(candidate) >= (tuningBest.get(candidate) ?? 0) - margin;
    // Candidates the margin rules out score below every threshold.
    const found = bestThreshold(tuning, (candidate) => (eligible(candidate) ? score(candidate) : -1));
    if (found.recall > chosen.recall && Number.isFinite(found.threshold)) chosen = { ...found, margin };
  }
  const reportingBest = bestOther(reporting);
  const report = measure(
    reporting,
    (candidate) =>
      score(candidate) >= chosen.threshold &&
      score(candidate) >= (reportingBest.get(candidate) ?? 0) - chosen.margin,
  );
  const [low, high] = wilson(report.goldKept, report.kept);
  // Shipped rounded down to three decimals, as the other thresholds.
  return { threshold: Math.floor(chosen.threshold * 1000) / 1000, margin: chosen.margin, report, low, high };
}

function measure(candidates: Candidate[], keep: (candidate: Candidate) => boolean) {
  const kept = candidates.filter(keep);
  const goldKept = kept.filter((candidate) => candidate.gold).length;
  const gold = candidates.filter((candidate) => candidate.gold).length;
  return {
    kept: kept.length,
    goldKept,
    precision: kept.length === 0 ? 0 : goldKept / kept.length,
    recall: gold === 0 ? 0 : goldKept / gold,
  };
}

/** The threshold on `value` with the highest recall at precision >= `tuningPrecision`. */
function bestThreshold(candidates: Candidate[], value: (candidate: Candidate) => number) {
  const ordered = [...candidates].sort((a, b) => value(b) - value(a));
  const gold = ordered.filter((candidate) => candidate.gold).length;
  let best = { threshold: Number.POSITIVE_INFINITY, recall: 0 };
  let goldKept = 0;
  for (const [index, candidate] of ordered.entries()) {
    if (candidate.gold) goldKept += 1;
    const next = ordered[index + 1];
    if (next && value(next) === value(candidate)) continue;
    const precision = goldKept / (index + 1);
    const recall = goldKept / Math.max(1, gold);
    if (precision >= tuningPrecision && recall > best.recall) best = { threshold: value(candidate), recall };
  }
  return best;
}

function choose(tuning: Candidate[]): { cosineWeight: number; threshold: number } {
  let best = { cosineWeight: 1, threshold: Number.POSITIVE_INFINITY, recall: -1 };
  for (let step = 0; step <= 10; step += 1) {
    const settings = { ...supportSettings, cosineWeight: step / 10 };
    const found = bestThreshold(tuning, (candidate) =>
      supportScore(candidate.cosine, candidate.share, settings),
    );
    if (found.recall > best.recall) best = { cosineWeight: step / 10, ...found };
  }
  // Thresholds are shipped rounded down to three decimals (still the same kept set on tuning).
  return { cosineWeight: best.cosineWeight, threshold: Math.floor(best.threshold * 1000) / 1000 };
}

function chooseLexical(tuning: Candidate[]): number {
  return Math.floor(bestThreshold(tuning, (candidate) => candidate.share).threshold * 1000) / 1000;
}

/** The probability that a gold candidate scores above a non-gold one (ties count half). */
function auc(higher: number[], lower: number[]): number {
  const sorted = [...lower].sort((a, b) => a - b);
  let wins = 0;
  for (const value of higher) {
    let below = 0;
    let equal = 0;
    for (const other of sorted) {
      if (other < value) below += 1;
      else if (other === value) equal += 1;
      else break;
    }
    wins += below + equal / 2;
  }
  return wins / Math.max(1, higher.length * lower.length);
}
