// `npm run eval -- citation-support`: can a citation's support be judged by the words the sentence
// shares with the cited passage? On SciFact's labelled pairs (a claim and its abstract's gold
// rationale sentences, SUPPORT or CONTRADICT, and the abstract's other sentences), how well the share
// of the claim's content words found in a sentence tells them apart (decision 0047: it does not).
// Then the judge the agent runs on each citation: is the cited abstract gold evidence for the claim
// among the abstracts a run retrieved (decision 0063, eval/citation-gold.ts)?

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { termShare } from '../src/agent/citation-support.js';
import { loadConfig } from '../src/config/load-config.js';
import { percentile } from '../src/platform/percentile.js';
import { goldCitationEval } from './citation-gold.js';
import type { EvalReport } from './index.js';
import { memoizedEmbeddingModel } from './lib/memo-embedding-model.js';

const scifact = join(import.meta.dirname, '..', '..', 'shared', 'data', 'eval', 'scifact');

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
  type Kind = 'SUPPORT' | 'CONTRADICT' | 'other';
  const pairs: Array<{ kind: Kind; claim: string; sentences: string[] }> = [];
  for (const line of readFileSync(join(scifact, 'queries.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const claim = JSON.parse(line) as {
      text: string;
      evidence: Record<string, { label: 'SUPPORT' | 'CONTRADICT'; sentences: number[] }>;
    };
    for (const [id, evidence] of Object.entries(claim.evidence)) {
      const sentences = corpus.get(id);
      if (!sentences) continue;
      pairs.push({
        kind: evidence.label,
        claim: claim.text,
        sentences: evidence.sentences.map((index) => sentences[index] ?? ''),
      });
      const others = sentences.filter((_, index) => !evidence.sentences.includes(index));
      if (others.length > 0) pairs.push({ kind: 'other', claim: claim.text, sentences: others });
    }
  }
  const scores: Record<Kind, number[]> = { SUPPORT: [], CONTRADICT: [], other: [] };
  for (const pair of pairs)
    scores[pair.kind].push(Math.max(...pair.sentences.map((sentence) => termShare(pair.claim, sentence))));
  // The same pairs by the embedding model the service ships (cosine of the claim and the best sentence).
  const model = memoizedEmbeddingModel(loadConfig(), 'citation-support-');
  const texts = [...new Set(pairs.flatMap((pair) => [pair.claim, ...pair.sentences]))];
  const vectors = new Map<string, Float32Array>();
  for (let start = 0; start < texts.length; start += 64) {
    const batch = texts.slice(start, start + 64);
    const embedded = await model.embed(batch);
    for (const [index, text] of batch.entries()) vectors.set(text, embedded[index] as Float32Array);
  }
  const cosine = (a: Float32Array, b: Float32Array) => {
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < a.length; i += 1) {
      dot += (a[i] ?? 0) * (b[i] ?? 0);
      na += (a[i] ?? 0) ** 2;
      nb += (b[i] ?? 0) ** 2;
    }
    return dot / Math.sqrt(na * nb || 1);
  };
  const similar: Record<Kind, number[]> = { SUPPORT: [], CONTRADICT: [], other: [] };
  for (const pair of pairs) {
    const claim = vectors.get(pair.claim) as Float32Array;
    similar[pair.kind].push(
      Math.max(...pair.sentences.map((sentence) => cosine(claim, vectors.get(sentence) as Float32Array))),
    );
  }
  const median = (values: number[]) => (values.length > 0 ? percentile(values, 0.5) : 0);
  const supportOverContradict = auc(scores.SUPPORT, scores.CONTRADICT);
  const rationaleOverOther = auc([...scores.SUPPORT, ...scores.CONTRADICT], scores.other);
  const embeddedSupport = auc(similar.SUPPORT, similar.CONTRADICT);
  const embeddedRationale = auc([...similar.SUPPORT, ...similar.CONTRADICT], similar.other);
  // Decision 0063: is the cited passage gold evidence at all (not: does it support or contradict)?
  const gold = await goldCitationEval(model);
  await model.close();
  return {
    name: 'citation-support',
    metrics: {
      'AUC support > contradict': supportOverContradict,
      'AUC rationale > other sentence': rationaleOverOther,
      'embedding AUC support > contradict': embeddedSupport,
      'embedding AUC rationale > other': embeddedRationale,
      ...gold.metrics,
    },
    summary: [
      `best sentence's share of the claim's content words, median: SUPPORT rationale ${median(scores.SUPPORT).toFixed(2)} (${scores.SUPPORT.length} pairs), CONTRADICT rationale ${median(scores.CONTRADICT).toFixed(2)} (${scores.CONTRADICT.length}), best other sentence of the same abstract ${median(scores.other).toFixed(2)} (${scores.other.length})`,
      `AUC: support over contradict ${supportOverContradict.toFixed(3)} (0.5 = chance), gold rationale over the abstract's other sentences ${rationaleOverOther.toFixed(3)}: shared words do not judge support`,
      `embedding model (${model.id}), cosine of the claim and the best sentence, median: SUPPORT ${median(similar.SUPPORT).toFixed(2)}, CONTRADICT ${median(similar.CONTRADICT).toFixed(2)}, other ${median(similar.other).toFixed(2)}; AUC support over contradict ${embeddedSupport.toFixed(3)}, rationale over other ${embeddedRationale.toFixed(3)}`,
      ...gold.summary,
    ],
  };
}
