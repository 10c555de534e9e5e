import { describe, expect, it } from 'vitest';
import { splitThreadBudget } from './cpu-budget.js';

describe('splitThreadBudget', () => {
  it('keeps the shares of a service without a local model (half to embeddings, 2 PDF workers)', () => {
    expect(splitThreadBudget({ total: 0, cores: 8, localChat: false })).toEqual({
      chat: 0,
      embedding: 4,
      embeddingBackground: 8,
      pdfWorkers: 2,
    });
    expect(splitThreadBudget({ total: 1, localChat: false })).toEqual({
      chat: 0,
      embedding: 1,
      embeddingBackground: 1,
      pdfWorkers: 1,
    });
  });

  it('gives embeddings and parsing a quarter each beside a local model, and the model the rest', () => {
    const split = (total: number) => splitThreadBudget({ total, localChat: true });
    expect(split(1)).toEqual({ chat: 1, embedding: 1, embeddingBackground: 1, pdfWorkers: 1 });
    expect(split(2)).toEqual({ chat: 1, embedding: 1, embeddingBackground: 2, pdfWorkers: 1 });
    expect(split(3)).toEqual({ chat: 1, embedding: 1, embeddingBackground: 3, pdfWorkers: 1 });
    expect(split(4)).toEqual({ chat: 2, embedding: 1, embeddingBackground: 4, pdfWorkers: 1 });
    expect(split(8)).toEqual({ chat: 4, embedding: 2, embeddingBackground: 8, pdfWorkers: 2 });
    expect(split(16)).toEqual({ chat: 8, embedding: 4, embeddingBackground: 16, pdfWorkers: 4 });
  });

  it('uses the cores when the budget is 0, and explicit settings over shares', () => {
    expect(splitThreadBudget({ total: 0, cores: 4, localChat: true })).toEqual({
      chat: 2,
      embedding: 1,
      embeddingBackground: 4,
      pdfWorkers: 1,
    });
    expect(
      splitThreadBudget({
        total: 2,
        localChat: true,
        chatThreads: 1,
        embeddingThreads: 2,
        embeddingBackgroundWorkers: 1,
        pdfWorkers: 3,
      }),
    ).toEqual({ chat: 1, embedding: 2, embeddingBackground: 1, pdfWorkers: 3 });
    expect(splitThreadBudget({ total: 2, localChat: false, chatThreads: 4 }).chat).toBe(0);
  });
});
