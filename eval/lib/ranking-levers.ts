import {
  type ChunkScoring,
  defaultChunkScoring,
  type SectionKind,
} from '../../src/services/question/chunk-scoring.js';
import {
  candidatePassages,
  defaultFusion,
  type FusionOptions,
  fuseCandidates,
  fuseScores,
} from '../../src/services/question/fusion.js';
import { type PassageScores, rankChunks } from '../../src/services/question/question-ranker.js';
import { analyze } from '../../src/text/analyzer.js';
import { Bm25Index, passageBm25 } from '../../src/text/bm25.js';

/** A ranking under test: passage scores in, chunk indexes out (best first). */
export interface RankingSetting {
  label: string;
  rank(scores: PassageScores, question: string): number[];
}

function setting(label: string, fusion: FusionOptions, scoring: Partial<ChunkScoring> = {}): RankingSetting {
  // Overrides on the service default; a full `ChunkScoring` replaces it.
  const full = { ...defaultChunkScoring, ...scoring };
  return {
    label,
    rank: (scores) =>
      rankChunks(
        scores,
        fuseScores(scores.dense, scores.bm25, 'hybrid', fusion),
        Number.MAX_SAFE_INTEGER,
        full,
      ).map((chunk) => chunk.index),
  };
}

/** The service's ranking (what /api/question does): `defaultFusion`, `defaultChunkScoring`. */
export const serviceRanking = setting('service default', defaultFusion);

const priors: Record<string, Partial<Record<SectionKind, number>>> = {
  none: {},
  'front/background ×0.85 (no closing)': { front: 0.85, background: 0.85 },
  'front/background ×0.7, closing ×0.85': { front: 0.7, background: 0.7, closing: 0.85 },
  'front/background/closing ×0.85': { front: 0.85, background: 0.85, closing: 0.85 },
  'results ×1.15 (alone)': { results: 1.15 },
  '+ results ×1.15': { ...defaultChunkScoring.sectionPriors, results: 1.15 },
};

/** Every chunk-scoring lever off: a chunk scores as its best passage. */
const plain: ChunkScoring = {
  neighbourWeight: 0,
  secondWeight: 0,
  sectionPriors: {},
  excludeReferences: false,
};

/**
 * The levers of issue 14 measured on the same passage scores (a lever that needs other passages or
 * another query is measured by its own run: `READER_QA_PASSAGE_TOKENS`, query expansion in
 * decision 0012): the ranking before them, then each lever changed alone from the service default
 * (`defaultFusion`, `defaultChunkScoring`): fusion weight, passage windows, chunk aggregation,
 * section priors, the reference list.
 */
export function rankingLevers(): RankingSetting[] {
  const base = defaultFusion;
  return [
    setting('before (w=0.4, best passage, no priors)', { method: 'convex', weight: 0.4 }, plain),
    ...[0.3, 0.4, 0.5, 0.7, 0.8].map((weight) =>
      setting(`fusion convex w=${weight}`, { method: 'convex', weight }),
    ),
    setting('fusion rrf w=0.5', { method: 'rrf', weight: 0.5 }),
    ...[0.25, 0.5, 1].map((weight) =>
      setting(`window: + ${weight} × better neighbour`, base, { neighbourWeight: weight }),
    ),
    ...[0.25, 0.5, 1].map((weight) =>
      setting(`chunk: best + ${weight} × second`, base, { secondWeight: weight }),
    ),
    ...Object.entries(priors).map(([label, sectionPriors]) =>
      setting(`priors: ${label}`, base, { sectionPriors }),
    ),
    setting('references ranked like any text', base, { excludeReferences: false }),
    ...(
      [
        [3, 5, 0.3],
        [3, 10, 0.3],
        [1, 5, 0.5],
      ] as const
    ).map(([passages, terms, weight]) => expansion(passages, terms, weight)),
    keyTerms(),
    ...[8, 16, 24, 32, 48, 64].map((count) => firstQuestion(count)),
    ...(
      [
        [16, 8],
        [16, 16],
        [24, 8],
        [24, 16],
        [24, 24],
        [32, 4],
        [32, 8],
        [32, 16],
        [32, 24],
        [32, 32],
        [48, 8],
        [48, 16],
      ] as const
    ).map(([count, spread]) => firstQuestion(count, spread)),
  ];
}

/**
 * A document's first question (its vectors not built yet): only BM25's `count` best passages are
 * embedded and fused (`fuseCandidates`), as `QuestionRanker` does; the rest rank by BM25 below them.
 */
function firstQuestion(count: number, spread = 0): RankingSetting {
  return {
    label: `first question: BM25's top ${count}${spread > 0 ? ` + ${spread} spread` : ''} embedded`,
    rank: (scores) => {
      const candidates = candidatePassages(scores.bm25, count, spread);
      return rankChunks(
        scores,
        fuseCandidates(scores.dense, scores.bm25, candidates, defaultFusion),
        Number.MAX_SAFE_INTEGER,
        defaultChunkScoring,
      ).map((chunk) => chunk.index);
    },
  };
}

const indexes = new WeakMap<PassageScores, { bm25: Bm25Index; terms: string[][] }>();

/** BM25 index and terms of a document's passages, built once per set of scores. */
function passageIndex(scores: PassageScores): { bm25: Bm25Index; terms: string[][] } {
  let index = indexes.get(scores);
  if (!index) {
    index = {
      bm25: Bm25Index.of(
        scores.passages.map((passage) => passage.text),
        passageBm25,
      ),
      terms: scores.passages.map((passage) => analyze(passage.text)),
    };
    indexes.set(scores, index);
  }
  return index;
}

// Words of research questions that name no topic: "this paper", "the authors", "proposed", "used".
const researchSpeak = new Set(
  analyze(
    'paper papers work works study studies author authors propose proposed present presented use used using',
  ),
);

/**
 * The question's key terms: BM25 scored without the research-speak words above (they match every
 * introduction: "In this paper we propose…"). The dense side keeps the whole question.
 */
function keyTerms(): RankingSetting {
  return {
    label: 'query key terms: research-speak dropped from BM25',
    rank: (scores, question) => {
      const { bm25 } = passageIndex(scores);
      const key = analyze(question).filter((term) => !researchSpeak.has(term));
      const words = key.length > 0 ? bm25.score(key.join(' ')) : scores.bm25;
      return rankChunks(
        scores,
        fuseScores(scores.dense, words, 'hybrid', defaultFusion),
        Number.MAX_SAFE_INTEGER,
        defaultChunkScoring,
      ).map((chunk) => chunk.index);
    },
  };
}

/**
 * Query expansion by pseudo-relevance feedback (RM3-like, BM25 side only): the `passages` best
 * passages of the first ranking give their `terms` strongest terms (tf × idf over the document's
 * passages, the question's own terms and bare numbers left out), whose BM25 score is added with
 * `weight` before fusing again. The dense side keeps the question's own vector (a second query vector
 * per question would double the warm question's cost).
 */
function expansion(passages: number, terms: number, weight: number): RankingSetting {
  return {
    label: `query expansion: ${terms} terms of the top ${passages} passages × ${weight}`,
    rank: (scores, question) => {
      const index = passageIndex(scores);
      const fused = fuseScores(scores.dense, scores.bm25, 'hybrid', defaultFusion);
      const own = new Set(analyze(question));
      const frequency = new Map<string, number>();
      for (const list of index.terms)
        for (const term of new Set(list)) frequency.set(term, (frequency.get(term) ?? 0) + 1);
      const weights = new Map<string, number>();
      const top = [...fused.keys()]
        .sort((a, b) => (fused[b] as number) - (fused[a] as number))
        .slice(0, passages);
      for (const row of top) {
        const list = index.terms[row] as string[];
        const counts = new Map<string, number>();
        for (const term of list) counts.set(term, (counts.get(term) ?? 0) + 1);
        for (const [term, count] of counts) {
          if (own.has(term) || /^\d+$/.test(term)) continue;
          const idf = Math.log(1 + scores.passages.length / (frequency.get(term) as number));
          weights.set(term, (weights.get(term) ?? 0) + (count / list.length) * idf);
        }
      }
      const added = [...weights.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, terms)
        .map(([term]) => term);
      const extra = index.bm25.score(added.join(' '));
      const bm25 = scores.bm25.map((value, row) => value + weight * (extra[row] as number));
      return rankChunks(
        scores,
        fuseScores(scores.dense, bm25, 'hybrid', defaultFusion),
        Number.MAX_SAFE_INTEGER,
        defaultChunkScoring,
      ).map((chunk) => chunk.index);
    },
  };
}
