// `npm run eval -- citation-support`: can a citation's support be judged by the words the sentence
// shares with the cited passage? On SciFact's labelled pairs (a claim and its abstract's gold
// rationale sentences, SUPPORT or CONTRADICT, and the abstract's other sentences), how well the share
// of the claim's content words found in a sentence tells them apart (decision 0047: it does not).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { contentTerms, stem } from '../src/text/keywords.js';
import type { EvalReport } from './index.js';

const scifact = join(import.meta.dirname, '..', '..', 'shared', 'data', 'eval', 'scifact');

/** The share of the claim's content terms (stemmed) that the sentence holds. */
export function termShare(claim: string, sentence: string): number {
  const wanted = new Set(contentTerms(claim).map(stem));
  const present = new Set(contentTerms(sentence).map(stem));
  let found = 0;
  for (const term of wanted) if (present.has(term)) found += 1;
  return wanted.size === 0 ? 0 : found / wanted.size;
}

/** The probability that a score of `higher` exceeds one of `lower` (ties count half): the AUC. */
export function auc(higher: number[], lower: number[]): number {
  let wins = 0;
  for (const a of higher) for (const b of lower) wins += a > b ? 1 : a === b ? 0.5 : 0;
  return wins / Math.max(1, higher.length * lower.length);
}

export async function citationSupportEval(): Promise<EvalReport> {
  const corpus = new Map<string, string[]>();
  for (const line of gunzipSync(readFileSync(join(scifact, 'corpus.jsonl.gz')))
    .toString('utf8')
    .split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { _id: string; sentences: string[] };
    corpus.set(record._id, record.sentences);
  }
  const scores: Record<'SUPPORT' | 'CONTRADICT' | 'other', number[]> = {
    SUPPORT: [],
    CONTRADICT: [],
    other: [],
  };
  for (const line of readFileSync(join(scifact, 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const claim = JSON.parse(line) as {
      text: string;
      evidence: Record<string, { label: 'SUPPORT' | 'CONTRADICT'; sentences: number[] }>;
    };
    for (const [id, evidence] of Object.entries(claim.evidence)) {
      const sentences = corpus.get(id);
      if (!sentences) continue;
      scores[evidence.label].push(
        Math.max(...evidence.sentences.map((index) => termShare(claim.text, sentences[index] ?? ''))),
      );
      const others = sentences.filter((_, index) => !evidence.sentences.includes(index));
      if (others.length > 0)
        scores.other.push(Math.max(...others.map((sentence) => termShare(claim.text, sentence))));
    }
  }
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? 0;
  const supportOverContradict = auc(scores.SUPPORT, scores.CONTRADICT);
  const rationaleOverOther = auc([...scores.SUPPORT, ...scores.CONTRADICT], scores.other);
  return {
    name: 'citation-support',
    metrics: {
      'AUC support > contradict': supportOverContradict,
      'AUC rationale > other sentence': rationaleOverOther,
    },
    summary: [
      `best sentence's share of the claim's content words, median: SUPPORT rationale ${median(scores.SUPPORT).toFixed(2)} (${scores.SUPPORT.length} pairs), CONTRADICT rationale ${median(scores.CONTRADICT).toFixed(2)} (${scores.CONTRADICT.length}), best other sentence of the same abstract ${median(scores.other).toFixed(2)} (${scores.other.length})`,
      `AUC: support over contradict ${supportOverContradict.toFixed(3)} (0.5 = chance), gold rationale over the abstract's other sentences ${rationaleOverOther.toFixed(3)}: shared words do not judge support`,
    ],
  };
}
