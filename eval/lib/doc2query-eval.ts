import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EmbeddingModel } from '../../src/ports/embedding-model.js';
import { readerQaChatModel, readerQaChatModelPath } from './llm-rerank-eval.js';

/** A QASPER question with the service's full chunk order and its paper's chunks. */
export interface Doc2QueryItem {
  question: string;
  /** Chunk indexes in the service's order (every chunk). */
  order: number[];
  chunks: readonly string[];
  gold: ReadonlySet<number>;
}

/** Questions generated per chunk. */
const perChunk = 6;
/** Words of a chunk shown to the model (chunks here are ~300–480 words). */
const shownWords = 600;
/** Weights of the generated-question score against the service's order measured (0: the service). */
const weights = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1];

const system = 'You write questions about research papers.';
function prompt(text: string): string {
  return `Text from a research paper:\n"""\n${text}\n"""\n\nWrite ${perChunk} different short questions that a reader of this paper might ask and that this text answers. Write one question per line, nothing else.`;
}

/**
 * Document expansion by generated questions ("doc2query", decision 0012): a local chat model writes
 * six reader questions for every chunk (once per chunk, cached in `.eval/reader-qa/doc2query.jsonl`),
 * MiniLM embeds them, and a chunk's score is the largest cosine between the reader's question and
 * its generated ones, mixed with the service's order, w · minmax(that cosine) + (1 − w) · (1 − rank/n).
 * Readers' questions are short and generic ("What baselines do they compare to?"); question-to-question
 * similarity is what MiniLM was trained on most. Prints top-1 and top-3 per weight and the model's
 * seconds per chunk. Model: `READER_QA_LLM_MODEL` or Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 2 threads,
 * temperature 0 (`READER_QA_LLM_THREADS`).
 */
export async function doc2queryRows(items: Doc2QueryItem[], embedder: EmbeddingModel): Promise<string[]> {
  const chat = readerQaChatModel(300_000);
  if (!chat) return [`doc2query SKIPPED: no GGUF model at ${readerQaChatModelPath()}`];
  const file = join('.eval', 'reader-qa', 'doc2query.jsonl');
  const cache = new Map<string, { q: string[]; ms: number }>();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const row = JSON.parse(line) as { key: string; q: string[]; ms: number };
      cache.set(row.key, row);
    }
  }
  const generatedMs: number[] = [];
  const questionsOf = async (chunk: string): Promise<string[]> => {
    const text = chunk.split(/\s+/).slice(0, shownWords).join(' ');
    const key = createHash('sha256')
      .update(JSON.stringify([perChunk, prompt(text)]))
      .digest('hex');
    const hit = cache.get(key);
    if (hit) {
      generatedMs.push(hit.ms);
      return hit.q;
    }
    const started = performance.now();
    let reply = '';
    for await (const event of chat.stream({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: prompt(text) },
      ],
      maxTokens: 160,
      temperature: 0,
      isolated: true,
    })) {
      if (event.type === 'text') reply += event.text;
    }
    const questions = reply
      .split('\n')
      .map((line) => line.replace(/^\s*(\d+[.)]|[-*•])\s*/, '').trim())
      .filter((line) => line.length > 8);
    const ms = performance.now() - started;
    cache.set(key, { q: questions, ms });
    generatedMs.push(ms);
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify({ key, q: questions, ms })}\n`);
    return questions;
  };
  try {
    // Each paper's chunks once: their generated questions' vectors.
    const vectorsOf = new Map<string, Float32Array[]>();
    for (const item of items) {
      for (const chunk of item.chunks) {
        if (vectorsOf.has(chunk)) continue;
        const questions = await questionsOf(chunk);
        vectorsOf.set(
          chunk,
          questions.length > 0 ? await embedder.embed(questions, { inputType: 'query' }) : [],
        );
      }
    }
    const scored = [];
    for (const item of items) {
      const [question] = await embedder.embed([item.question], { inputType: 'query' });
      const generated = item.chunks.map((chunk) => {
        const vectors = vectorsOf.get(chunk) ?? [];
        return vectors.length === 0
          ? 0
          : Math.max(...vectors.map((vector) => dot(question as Float32Array, vector)));
      });
      scored.push({ item, generated: minMax(generated) });
    }
    const lines = [
      `doc2query (${perChunk} questions a chunk by the local model, max cosine with the reader's question, mixed with the service's order; ${vectorsOf.size} chunks, ${(mean(generatedMs) / 1000).toFixed(1)} s a chunk):`,
    ];
    for (const weight of weights) {
      let top1 = 0;
      let top3 = 0;
      for (const { item, generated } of scored) {
        const n = item.order.length;
        const byRank = new Map(item.order.map((chunk, position) => [chunk, 1 - position / n]));
        const order = item.order
          .map((chunk) => ({
            chunk,
            score: weight * (generated[chunk] as number) + (1 - weight) * (byRank.get(chunk) as number),
          }))
          .sort((a, b) => b.score - a.score)
          .map((entry) => entry.chunk);
        if (item.gold.has(order[0] as number)) top1 += 1;
        if (order.slice(0, 3).some((chunk) => item.gold.has(chunk))) top3 += 1;
      }
      lines.push(
        `  weight ${weight}${weight === 0 ? ' (the service)' : ''}: QASPER top-1 ${percent(top1 / items.length)} / top-3 ${percent(top3 / items.length)}`,
      );
    }
    return lines;
  } finally {
    await chat.close();
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let dim = 0; dim < a.length; dim += 1) sum += (a[dim] as number) * (b[dim] as number);
  return sum;
}

function minMax(values: number[]): number[] {
  const low = Math.min(...values);
  const high = Math.max(...values);
  return values.map((value) => (high > low ? (value - low) / (high - low) : 0));
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}
