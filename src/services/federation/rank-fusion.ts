import type { Paper } from '../../domain/paper.js';
import { type Candidate, groupCandidates, mergeRecords } from './paper-merge.js';

/**
 * Weights of weighted reciprocal-rank fusion, per list (docs/decisions: federated search): the local
 * index weighs most (it holds what the user ingested); each source declares its own
 * (`PaperSource.fusionWeight`); a list with no weight weighs `defaultListWeight`.
 */
export const defaultFusionWeights: Record<string, number> = { index: 1.2 };

/** Weight of a list that declares none. */
export const defaultListWeight = 0.8;

/** The RRF constant k (60 in Cormack et al. 2009): damps the head of each list. */
export const fusionK = 60;

export interface FusedPaper {
  paper: Paper;
  score: number;
  /** Lists the paper was found in. */
  lists: string[];
}

/**
 * Weighted reciprocal-rank fusion over de-duplicated records: a paper scores
 * Σ weight(list) · boost / (k + rank) over the lists that returned it, where `boost` is 1 for
 * sources and 0.5 + 0.5 · score/maxScore for the local index (its BM25 score, when it reports one),
 * so that a strong lexical match in the user's own corpus outranks a weak one.
 */
export function fuse(
  candidates: Candidate[],
  weights: Record<string, number> = defaultFusionWeights,
): FusedPaper[] {
  const maxLocalScore = Math.max(
    0,
    ...candidates.filter((candidate) => candidate.list === 'index').map((candidate) => candidate.score ?? 0),
  );
  const contribution = (candidate: Candidate): number => {
    const weight = weights[candidate.list] ?? defaultListWeight;
    const boost =
      candidate.list === 'index' && maxLocalScore > 0 && candidate.score !== undefined
        ? 0.5 + (0.5 * Math.max(0, candidate.score)) / maxLocalScore
        : 1;
    return (weight * boost) / (fusionK + candidate.rank);
  };
  return groupCandidates(candidates)
    .map((group) => ({
      paper: mergeRecords(group),
      score: group.reduce((sum, candidate) => sum + contribution(candidate), 0),
      lists: [...new Set(group.map((candidate) => candidate.list))],
    }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.lists.length - a.lists.length ||
        (b.paper.cited_by_count ?? -1) - (a.paper.cited_by_count ?? -1),
    );
}
