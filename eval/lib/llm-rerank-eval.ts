import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LlamaCppChatModel } from '../../src/adapters/chat/llama-cpp-chat-model.js';
import { chatModelDir, localChatModelFiles } from '../../src/config/sections/chat.js';
import { percentile } from '../../src/platform/percentile.js';
import type { PassageScores } from '../../src/services/question/question-ranker.js';
import { PairScoreCache, rerankedOrder, topCandidates } from './llm-rerank.js';

/** A question of a set: its passage scores and its gold chunks. */
interface Item {
  question: string;
  scores: PassageScores;
  gold: ReadonlySet<number>;
}

/** The GGUF model the reader-qa eval's LLM levers run: `READER_QA_LLM_MODEL`, else the local 1.5B default. */
export function readerQaChatModelPath(): string {
  return process.env.READER_QA_LLM_MODEL?.trim() || join(chatModelDir(), localChatModelFiles['qwen2.5-1.5b']);
}

/** That model on llama.cpp (`READER_QA_LLM_THREADS`, default 2; temperature 0), or undefined when absent. */
export function readerQaChatModel(timeoutMs: number): LlamaCppChatModel | undefined {
  const modelPath = readerQaChatModelPath();
  if (!existsSync(modelPath)) return undefined;
  return new LlamaCppChatModel({
    modelPath,
    threads: Number(process.env.READER_QA_LLM_THREADS ?? 2),
    contextTokens: 4096,
    timeoutMs,
    temperature: 0,
  });
}

/** PubMedQA questions re-ranked (spread over the set; `READER_QA_LLM_PUBMED`, default 12). */
export function pubmedRerankItems(): number {
  const wanted = Number(process.env.READER_QA_LLM_PUBMED ?? 12);
  return Number.isFinite(wanted) && wanted > 0 ? wanted : 12;
}

/** Weights of p(yes) against the normalised hybrid score measured (1: p(yes) alone). */
const alphas = [1, 0.75, 0.5];

/**
 * The local LLM re-ranking of the hybrid ranking's top N chunks (decision 0012, "LLM re-ranking"):
 * for every N of `sizes` and every weight of p(yes), top-1 and top-3 beside the hybrid ranking on
 * the same questions, the share of questions whose best chunk is in the top N at all (the ceiling of
 * a re-ranking), and the model's seconds per question (the sum of its N judgements: mean, p95).
 *
 * Pairs are scored in the hybrid order, the largest N's candidates of each question in turn, and
 * cached in `.eval/reader-qa/llm-rerank.jsonl`; `READER_QA_LLM_BUDGET_S` stops scoring new pairs
 * after that many seconds (a chunk of a run held under the CPU lock; the next run resumes), and the
 * rows then count only the questions whose candidates are all scored. Model:
 * `READER_QA_LLM_MODEL` (a GGUF path; default Qwen2.5-Coder-1.5B-Instruct Q4_K_M), threads
 * `READER_QA_LLM_THREADS` (default 2), temperature 0.
 */
export async function llmRerankRows(
  sizes: number[],
  sets: Array<{ name: string; items: Item[] }>,
): Promise<string[]> {
  const chat = readerQaChatModel(120_000);
  if (!chat) return [`LLM re-ranking SKIPPED: no GGUF model at ${readerQaChatModelPath()}`];
  const budgetMs = Number(process.env.READER_QA_LLM_BUDGET_S ?? Number.POSITIVE_INFINITY) * 1000;
  const largest = Math.max(...sizes);
  const cache = new PairScoreCache(join('.eval', 'reader-qa', 'llm-rerank.jsonl'));
  const lines: string[] = [];
  const started = performance.now();
  let outOfTime = false;
  const loadStarted = performance.now();
  await chat.load();
  const loadMs = performance.now() - loadStarted;
  try {
    // Every set's candidates and their judgements (as far as the budget goes).
    const judged = [];
    for (const set of sets) {
      const rows = [];
      for (const item of set.items) {
        const candidates = topCandidates(item.scores, largest);
        const scores = [];
        for (const candidate of candidates) {
          const cached = cache.get(chat.id, item.question, candidate.text);
          if (!cached && (outOfTime || performance.now() - started > budgetMs)) {
            outOfTime = true;
            break;
          }
          scores.push(cached ?? (await cache.score(chat, item.question, candidate.text)));
          if (cached) cache.reused += 1;
        }
        if (scores.length === candidates.length) rows.push({ item, candidates, scores });
      }
      judged.push({ name: set.name, rows, asked: set.items.length });
      console.error(
        `reader-qa: LLM re-ranking ${set.name}: ${rows.length}/${set.items.length} questions scored`,
      );
    }
    lines.push(
      `LLM re-ranking of the hybrid top N chunks (each shown as its best passage; ${chat.id}, threads ${process.env.READER_QA_LLM_THREADS ?? 2}, temperature 0, p(yes) of choices yes/no; score = α·p(yes) + (1−α)·hybrid score min-max normalised over the N; ${cache.computed} pairs judged this run, ${cache.reused} from the cache; model load ${(loadMs / 1000).toFixed(1)} s, untimed):`,
    );
    if (outOfTime)
      lines.push('  INCOMPLETE: the time budget ran out; run again to resume (cached pairs are reused)');
    for (const { name, rows, asked } of judged) {
      if (rows.length === 0) {
        lines.push(`  ${name}: no question fully scored yet`);
        continue;
      }
      const rate = (hit: (row: (typeof rows)[number]) => boolean) => rows.filter(hit).length;
      const hybrid1 = rate((row) => row.item.gold.has(row.candidates[0]?.index ?? -1));
      const hybrid3 = rate((row) => row.candidates.slice(0, 3).some((c) => row.item.gold.has(c.index)));
      const show = (hits: number) =>
        rows.length <= 8 ? `${hits}/${rows.length}` : `${((hits / rows.length) * 100).toFixed(1)}%`;
      lines.push(
        `  ${name} (${rows.length} of ${asked} questions): hybrid top-1 ${show(hybrid1)} / top-3 ${show(hybrid3)}`,
      );
      // Does p(yes) tell the best chunk from the others among the candidates? Pairwise, per question.
      const auc = (value: (row: (typeof rows)[number], at: number) => number) => {
        let wins = 0;
        let pairs = 0;
        for (const row of rows) {
          row.candidates.forEach((gold, g) => {
            if (!row.item.gold.has(gold.index)) return;
            row.candidates.forEach((other, o) => {
              if (row.item.gold.has(other.index)) return;
              pairs += 1;
              const difference = value(row, g) - value(row, o);
              wins += difference > 0 ? 1 : difference === 0 ? 0.5 : 0;
            });
          });
        }
        return pairs > 0 ? (wins / pairs).toFixed(2) : '—';
      };
      const goldP = rows.flatMap((row) =>
        row.candidates.flatMap((c, at) => (row.item.gold.has(c.index) ? [row.scores[at]?.p ?? 0] : [])),
      );
      const otherP = rows.flatMap((row) =>
        row.candidates.flatMap((c, at) => (row.item.gold.has(c.index) ? [] : [row.scores[at]?.p ?? 0])),
      );
      const mean = (values: number[]) =>
        values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
      lines.push(
        `    over the top ${largest}: p(yes) of the best chunk ${mean(goldP).toFixed(2)} (${goldP.length}), of the others ${mean(otherP).toFixed(2)} (${otherP.length}); pairwise AUC best-vs-other: p(yes) ${auc((row, at) => row.scores[at]?.p ?? 0)}, hybrid score ${auc((row, at) => row.candidates[at]?.score ?? 0)}`,
      );
      for (const n of sizes) {
        const inTopN = rate((row) => row.candidates.slice(0, n).some((c) => row.item.gold.has(c.index)));
        const seconds = rows.map(
          (row) => row.scores.slice(0, n).reduce((sum, score) => sum + score.ms, 0) / 1000,
        );
        const mean = seconds.reduce((sum, value) => sum + value, 0) / seconds.length;
        const cells = alphas.map((alpha) => {
          const orders = rows.map((row) =>
            rerankedOrder(
              row.candidates,
              row.scores.map((score) => score.p),
              n,
              alpha,
            ),
          );
          const top1 = rows.filter((row, at) => row.item.gold.has(orders[at]?.[0] ?? -1)).length;
          const top3 = rows.filter((row, at) =>
            (orders[at] ?? []).slice(0, 3).some((index) => row.item.gold.has(index)),
          ).length;
          return `α=${alpha} ${show(top1)} / ${show(top3)}`;
        });
        lines.push(
          `    N=${n}: ${cells.join('; ')}  (best chunk in the top ${n}: ${show(inTopN)}; ${mean.toFixed(1)} s a question, p95 ${percentile(seconds, 0.95).toFixed(1)} s)`,
        );
      }
    }
    return lines;
  } finally {
    await chat.close();
  }
}
