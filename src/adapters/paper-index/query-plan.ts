/**
 * Query planning both PaperIndex adapters share (docs/decisions/0013): which should clauses are
 * scored at all (corpus-level stop words), which produce candidates on broad queries (the rarest,
 * within a row budget), and the list of phrases BM25 sums over, in the order and multiplicity of
 * the SQLite adapter's MATCH expression (must clauses count twice: the keyword boost).
 */

export interface PlanOptions {
  /** Broad queries draw candidates from their rarest clauses while their counts stay within this (25 000). */
  candidateBudget: number;
  /** Should clauses in more than this fraction of the records are not scored (0.5)… */
  commonFraction: number;
  /** …unless in fewer than this many records (1 000). */
  commonFloor: number;
}

export const defaultPlanOptions: PlanOptions = {
  candidateBudget: 25_000,
  commonFraction: 0.5,
  commonFloor: 1000,
};

export interface ClausePlan {
  /** Clauses every result holds. */
  must: string[];
  /** Should clauses that score (all of them unless some are corpus-level stop words). */
  scored: string[];
  /** Without must clauses: the clauses a result holds at least one of (a subset of `scored`). */
  candidates: string[];
}

/**
 * Which should clauses produce candidates and which score. Clauses in more than `commonFraction`
 * of the records are left out altogether (low IDF, long posting lists). Without must clauses,
 * candidates are the rarest remaining clauses while their document counts add up to at most the
 * budget (always at least one); the others still score.
 */
export function planClauses(
  must: string[],
  should: string[],
  documents: (clause: string) => number,
  records: number,
  options: PlanOptions = defaultPlanOptions,
): ClausePlan {
  if (should.length === 0) return { must, scored: should, candidates: should };
  const common = Math.max(options.commonFloor, Math.floor(records * options.commonFraction));
  const ranked = should
    .map((clause) => ({ clause, rows: documents(clause) }))
    .sort((a, b) => a.rows - b.rows);
  // A query of common words only keeps them all (dropping them would change what it asks).
  const rare = ranked.filter((entry) => entry.rows <= common);
  const kept = rare.length > 0 ? rare : ranked;
  const scored = should.filter((clause) => kept.some((entry) => entry.clause === clause));
  if (must.length > 0) return { must, scored, candidates: scored };
  const candidates: string[] = [];
  let rows = 0;
  for (const entry of kept) {
    if (candidates.length > 0 && rows + entry.rows > options.candidateBudget) break;
    candidates.push(entry.clause);
    rows += entry.rows;
  }
  return { must, scored, candidates };
}

/**
 * The phrases BM25 sums over, in the SQLite MATCH expression's order: `must AND (must OR scored)`
 * with must clauses; `candidates` alone when they are all the scored clauses; else
 * `(candidates) AND (scored)`. A phrase listed twice counts twice.
 */
export function scoredPhrases(plan: ClausePlan): string[] {
  if (plan.must.length > 0)
    return plan.scored.length > 0 ? [...plan.must, ...plan.must, ...plan.scored] : plan.must;
  if (plan.candidates.length === plan.scored.length) return plan.candidates;
  return [...plan.candidates, ...plan.scored];
}
