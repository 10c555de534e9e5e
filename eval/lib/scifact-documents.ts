import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { analyze } from '../../src/text/analyzer.js';

/**
 * SciFact as a proxy for "which chunk of this document answers the question": each claim with
 * rationale sentences gets a synthetic document whose chunks are its gold abstract and the
 * `distractors` abstracts whose TITLES are most similar to the gold abstract's title (TF-IDF
 * cosine; the claim is not used to pick them, so no ranker under test chose its own distractors).
 * Like the chunks of one paper, the distractors are on the same topic. Chunk order is shuffled by a
 * fixed seed. A hit: the top chunk is the gold abstract; the passage hit also needs the top passage
 * to hold one of the rationale sentences.
 */
export interface SciFactDocument {
  claimId: string;
  claim: string;
  chunks: string[];
  /** Index of the gold abstract among `chunks`. */
  gold: number;
  /** The gold abstract's rationale sentences. */
  rationale: string[];
}

interface Abstract {
  _id: string;
  title: string;
  text: string;
  sentences: string[];
}

interface Claim {
  _id: string;
  text: string;
  cited_doc_ids: string[];
  evidence: Record<string, { label: string; sentences: number[] }>;
}

export function loadSciFactDocuments(
  folder: string,
  options: { claims: number; distractors: number },
): SciFactDocument[] {
  const corpus = gunzipSync(readFileSync(join(folder, 'corpus.jsonl.gz')))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Abstract);
  const byId = new Map(corpus.map((entry) => [entry._id, entry]));
  const titles = new TitleIndex(corpus);
  const claims = readFileSync(join(folder, 'queries.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Claim)
    .filter((claim) => Object.keys(claim.evidence).length > 0);
  // Every k-th claim, so the sample spreads over the alphabetically sorted file.
  const step = Math.max(1, Math.floor(claims.length / options.claims));
  const sample = claims.filter((_, index) => index % step === 0).slice(0, options.claims);
  return sample.flatMap((claim) => {
    const [goldId, evidence] = Object.entries(claim.evidence)[0] ?? [];
    const gold = goldId ? byId.get(goldId) : undefined;
    if (!gold || !evidence) return [];
    const excluded = new Set(claim.cited_doc_ids);
    const others = titles.nearest(gold, options.distractors, excluded).map((id) => byId.get(id) as Abstract);
    const abstracts = shuffle([gold, ...others], Number(claim._id) + 1);
    return [
      {
        claimId: claim._id,
        claim: claim.text,
        chunks: abstracts.map((entry) => `## ${entry.title}\n\n${entry.text}`),
        gold: abstracts.indexOf(gold),
        rationale: evidence.sentences
          .map((index) => gold.sentences[index] ?? '')
          .filter((text) => text.length > 0),
      },
    ];
  });
}

class TitleIndex {
  private readonly vectors = new Map<string, Map<string, number>>();
  private readonly postings = new Map<string, string[]>();

  constructor(corpus: Abstract[]) {
    const documentFrequency = new Map<string, number>();
    const terms = corpus.map((entry) => new Set(analyze(entry.title)));
    for (const set of terms)
      for (const term of set) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    corpus.forEach((entry, index) => {
      const vector = new Map<string, number>();
      for (const term of terms[index] ?? [])
        vector.set(term, Math.log(corpus.length / (documentFrequency.get(term) ?? 1)));
      const norm = Math.sqrt([...vector.values()].reduce((sum, value) => sum + value * value, 0)) || 1;
      for (const [term, value] of vector) vector.set(term, value / norm);
      this.vectors.set(entry._id, vector);
      for (const term of vector.keys()) {
        const list = this.postings.get(term);
        if (list) list.push(entry._id);
        else this.postings.set(term, [entry._id]);
      }
    });
  }

  nearest(entry: Abstract, count: number, excluded: Set<string>): string[] {
    const query = this.vectors.get(entry._id) ?? new Map<string, number>();
    const scores = new Map<string, number>();
    for (const [term, weight] of query) {
      for (const id of this.postings.get(term) ?? []) {
        scores.set(id, (scores.get(id) ?? 0) + weight * (this.vectors.get(id)?.get(term) ?? 0));
      }
    }
    return [...scores.entries()]
      .filter(([id]) => id !== entry._id && !excluded.has(id))
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, count)
      .map(([id]) => id);
  }
}

/** Deterministic Fisher–Yates with a small LCG. */
function shuffle<T>(items: T[], seed: number): T[] {
  const result = [...items];
  let state = seed >>> 0;
  for (let index = result.length - 1; index > 0; index -= 1) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const other = state % (index + 1);
    [result[index], result[other]] = [result[other] as T, result[index] as T];
  }
  return result;
}
