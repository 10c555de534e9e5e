import { availableParallelism } from 'node:os';
import type { Config } from './load-config.js';

/** Threads each CPU-bound part of the service computes with. */
export interface ThreadShares {
  /** llama.cpp threads of the local chat model (0 when no local model runs). */
  chat: number;
  /** ONNX Runtime intra-op threads of the embedding worker. */
  embedding: number;
  /** Background embedding workers (record vectors, low CPU priority): the whole budget unless set. */
  embeddingBackground: number;
  /** PDF parsing worker threads (each parses one document at a time). */
  pdfWorkers: number;
}

export interface ThreadBudgetInput {
  /** ALEXANDRIA_CPU_THREADS: 0 = the cores available. */
  total: number;
  /** Whether the local chat model (llama.cpp) runs in this process. */
  localChat: boolean;
  /** Explicit settings (0 or absent: take the share). */
  chatThreads?: number | undefined;
  embeddingThreads?: number | undefined;
  embeddingBackgroundWorkers?: number | undefined;
  pdfWorkers?: number | undefined;
  /** Cores of this machine (tests pin it). */
  cores?: number;
}

/**
 * Splits one thread budget between llama.cpp, ONNX Runtime and the PDF workers
 * (docs/decisions/0035-local-chat-model.md). llama.cpp's threads spin while they wait for each other,
 * so a generation that shares its cores with busy ONNX or PDF threads slows down many times over:
 * the shares are chosen so their sum stays near the budget once a local model runs.
 *
 * - No local model: as before it existed, embeddings half the budget, 2 PDF workers (1 on one core).
 * - Local model: a quarter of the budget each (at least one thread) to embeddings and parsing, the
 *   rest (at least one) to the model: 2 → 1/1/1, 4 → 2/1/1, 8 → 4/2/2. On 2 cores the model gets
 *   one thread, not both: measured on a busy 2-core machine, Qwen2.5-1.5B with 2 threads was up to
 *   2× faster than with 1 while the rest of the load was light, and 7× slower when it was not
 *   (1.0 s against 0.13 s a token); one thread never collapses. ALEXANDRIA_CHAT_THREADS=2 suits a
 *   machine the service has to itself.
 */
export function splitThreadBudget(input: ThreadBudgetInput): ThreadShares {
  const total = Math.max(1, input.total || input.cores || availableParallelism());
  const quarter = Math.max(1, Math.floor(total / 4));
  const shares: Omit<ThreadShares, 'embeddingBackground'> = input.localChat
    ? { chat: Math.max(1, total - 2 * quarter), embedding: quarter, pdfWorkers: quarter }
    : { chat: 0, embedding: Math.max(1, Math.floor(total / 2)), pdfWorkers: Math.min(2, total) };
  return {
    chat: input.localChat ? input.chatThreads || shares.chat : 0,
    embedding: input.embeddingThreads || shares.embedding,
    // At nice 10 they take mostly what the rest leaves idle, so they may have every thread.
    embeddingBackground: input.embeddingBackgroundWorkers || total,
    pdfWorkers: input.pdfWorkers || shares.pdfWorkers,
  };
}

/** The shares of a configuration (ALEXANDRIA_CPU_THREADS and the explicit thread settings). */
export function threadSharesOf(config: Config, localChat: boolean): ThreadShares {
  return splitThreadBudget({
    total: config.cpu.threads,
    localChat,
    chatThreads: config.chat.threads,
    embeddingThreads: config.embedding.threads,
    embeddingBackgroundWorkers: config.embedding.backgroundWorkers,
    pdfWorkers: config.pdf.workerThreads,
  });
}
