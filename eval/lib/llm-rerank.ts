import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ChatModel } from '../../src/ports/chat-model.js';
import { defaultChunkScoring } from '../../src/services/question/chunk-scoring.js';
import { defaultFusion, fuseScores } from '../../src/services/question/fusion.js';
import { type PassageScores, rankChunks } from '../../src/services/question/question-ranker.js';

/**
 * Pointwise LLM re-ranking of the hybrid ranking's top chunks (issue 14, decision 0012): each of the
 * top N chunks, shown as its best passage (what `QuestionRanker` returns with it), is put to a local
 * chat model as "does this passage answer the question? yes/no" with `choices`, and scored by
 * p(yes) (one evaluation, no sampling). The instruction and the question come first and the passage
 * last, so the sequence keeps the evaluated prefix from one candidate to the next.
 */
export const rerankPromptVersion = 1;

export const rerankSystem =
  'You judge whether a passage from a document answers a reader’s question. Reply with one word: yes or no.';

export function rerankUserMessage(question: string, passage: string): string {
  return `Question: ${question}\n\nDoes the passage below answer this question (or hold the facts needed to answer it)? Reply yes or no.\n\nPassage:\n${passage}`;
}

/** One (question, passage) judgement: p(yes) and the model time it took when it was computed. */
export interface PairScore {
  p: number;
  ms: number;
}

/**
 * p(yes) of (question, passage) pairs, cached in a JSON-lines file keyed by model, prompt and texts
 * (one line appended per pair, so a run cut by its time budget resumes where it stopped).
 */
export class PairScoreCache {
  private readonly scores = new Map<string, PairScore>();
  computed = 0;
  reused = 0;

  constructor(private readonly file: string) {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const row = JSON.parse(line) as { key: string } & PairScore;
      this.scores.set(row.key, { p: row.p, ms: row.ms });
    }
  }

  key(modelId: string, question: string, passage: string): string {
    return createHash('sha256')
      .update(
        JSON.stringify([modelId, rerankPromptVersion, rerankSystem, rerankUserMessage(question, passage)]),
      )
      .digest('hex');
  }

  get(modelId: string, question: string, passage: string): PairScore | undefined {
    return this.scores.get(this.key(modelId, question, passage));
  }

  /** The pair's score from the cache, else from the model (stored at once). */
  async score(model: ChatModel, question: string, passage: string): Promise<PairScore> {
    const key = this.key(model.id, question, passage);
    const hit = this.scores.get(key);
    if (hit) {
      this.reused += 1;
      return hit;
    }
    const started = performance.now();
    const p = await yesProbability(model, question, passage);
    const score = { p, ms: performance.now() - started };
    this.scores.set(key, score);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify({ key, ...score })}\n`);
    this.computed += 1;
    return score;
  }
}

/** p(yes) of the model's reply to the judgement prompt (the reply's first word when no probabilities). */
export async function yesProbability(model: ChatModel, question: string, passage: string): Promise<number> {
  let text = '';
  let probabilities: Record<string, number> | undefined;
  for await (const event of model.stream({
    messages: [
      { role: 'system', content: rerankSystem },
      { role: 'user', content: rerankUserMessage(question, passage) },
    ],
    choices: ['yes', 'no'],
    temperature: 0,
    maxTokens: 2,
    timeoutMs: 120_000,
  })) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'finish') probabilities = event.choiceProbabilities;
  }
  if (probabilities) return probabilities.yes ?? 0;
  return /^\s*yes/i.test(text) ? 1 : 0;
}

/** The hybrid ranking's top `n` chunks with their best passage and fused score (the service's order). */
export function topCandidates(
  scores: PassageScores,
  n: number,
): Array<{ index: number; score: number; text: string }> {
  return rankChunks(
    scores,
    fuseScores(scores.dense, scores.bm25, 'hybrid', defaultFusion),
    n,
    defaultChunkScoring,
  ).map((chunk) => ({ index: chunk.index, score: chunk.score, text: chunk.passage.text }));
}

/**
 * The top `n` candidates re-ordered by `alpha` × p(yes) + (1 − alpha) × their fused score min-max
 * normalised over the `n` (ties: the hybrid order); the chunks below them keep the hybrid order.
 */
export function rerankedOrder(
  candidates: ReadonlyArray<{ index: number; score: number }>,
  probabilities: readonly number[],
  n: number,
  alpha: number,
): number[] {
  const top = candidates.slice(0, n);
  const scores = top.map((candidate) => candidate.score);
  const min = Math.min(...scores);
  const span = Math.max(...scores) - min;
  const mixed = top.map((candidate, rank) => ({
    index: candidate.index,
    rank,
    value: alpha * (probabilities[rank] ?? 0) + (1 - alpha) * (span > 0 ? (candidate.score - min) / span : 1),
  }));
  mixed.sort((a, b) => b.value - a.value || a.rank - b.rank);
  return [...mixed.map((entry) => entry.index), ...candidates.slice(n).map((candidate) => candidate.index)];
}
