import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { GenerativeAnswers } from '../../src/agent/generative-answers.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { acinetobacter, dps, glucokinase } from '../fakes/research-corpus.js';

/**
 * generative_mode with a model that answers one record at a time (the local provider): one budget
 * for the whole search; records still waiting when it runs out get the extractive answer, each.
 */
describe('generative answers within one budget per search', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers the first records with the model and the rest extractively once the budget is spent', async () => {
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const fallbacks: unknown[] = [];
    const answers = new GenerativeAnswers({
      model,
      concurrency: 1,
      timeoutMs: 10_000,
      budgetMs: 3000,
      onFallback: (error) => fallbacks.push(error),
    });
    server.setScript(() => ({ text: 'A model answer.' }));
    server.requests.length = 0;
    server.delayMs = 2000;
    try {
      const papers = [acinetobacter, glucokinase, dps, acinetobacter];
      const annotated = await answers.annotate(papers, 'Which antibiotics did Acinetobacter lwoffii resist?');
      expect(annotated[0]?.answer).toMatch(/^A model answer\. \[Hartman et al\., 2024\]/);
      for (const record of annotated.slice(1)) {
        expect(record.answer).not.toContain('A model answer.');
        expect(record.answer).toMatch(/\]\(https:\/\/doi\.org\//);
      }
      // The second call was cut by the budget; the last two never reached the model.
      expect(server.requests.length).toBe(2);
      expect(fallbacks).toHaveLength(3);
    } finally {
      server.delayMs = 0;
    }
  });

  it('still stops when the caller goes away', async () => {
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 10_000,
      maxRetries: 0,
    });
    const answers = new GenerativeAnswers({ model, concurrency: 1, timeoutMs: 10_000, budgetMs: 5000 });
    server.setScript(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = answers.annotate([acinetobacter, glucokinase], 'query', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('gone')), 100);
    await expect(pending).rejects.toThrow('gone');
  });
});
