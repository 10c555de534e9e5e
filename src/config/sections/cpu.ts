import { envVar, nonNegativeInt } from '../env-var.js';

/**
 * One budget of CPU threads for the compute that shares the machine: the local chat model
 * (llama.cpp), the embedding model (ONNX Runtime) and the PDF parsing workers. Each takes its share
 * (src/config/cpu-budget.ts) unless its own variable sets a number.
 */
export const cpuSection = {
  threads: envVar('ALEXANDRIA_CPU_THREADS', nonNegativeInt, {
    default: '0',
    description:
      'CPU threads the service computes with, split between the local chat model, embeddings and PDF parsing (ALEXANDRIA_CHAT_THREADS, ALEXANDRIA_EMBEDDING_THREADS and ALEXANDRIA_PDF_WORKER_THREADS override a share); 0 = the CPU cores available.',
  }),
};
