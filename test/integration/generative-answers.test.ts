import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { GenerativeAnswers } from '../../src/agent/generative-answers.js';
import { paper } from '../fakes/agent-service-fakes.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { acinetobacter, dps, glucokinase, unrelated } from '../fakes/research-corpus.js';

const query = 'Which antibiotics did Acinetobacter lwoffii evolve resistance to?';
const hartman = '[Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24)';

describe('extractive generative answers (no model)', () => {
  const answers = new GenerativeAnswers({ concurrency: 2, timeoutMs: 1000 });

  it('gives the abstract sentences that best answer the query, in their order, with the citation', async () => {
    const [annotated] = await answers.annotate([acinetobacter], query);
    expect(annotated?.answer).toBe(
      `We compared how A. baumannii and Acinetobacter lwoffii evolve under antibiotic selection in the lab. A. baumannii readily evolved resistance to meropenem, ciprofloxacin, and gentamicin, but A. lwoffii only evolved resistance to ciprofloxacin. ${hartman}`,
    );
    expect(annotated?.title).toBe(acinetobacter.title);
  });

  it('says when the abstract does not address the query, and when there is none', async () => {
    const noAbstract = paper({
      title: 'A record without abstract',
      authors: ['Ann Lee'],
      year: 2020,
      doi: '10.1000/x',
    });
    const [parsing, bare] = await answers.annotate([unrelated, noAbstract], query);
    expect(parsing?.answer).toBe(
      'The abstract does not address the query directly; it states: “We survey chart parsing and transition-based parsing for natural language.” [Parser and Grammar, 2019](https://aclanthology.org/X19-0000)',
    );
    expect(bare?.answer).toBe(
      'No abstract is available for this record. [Lee, 2020](https://doi.org/10.1000/x)',
    );
  });
});

describe('model generative answers', () => {
  let server: FakeOpenAiServer;
  let answers: GenerativeAnswers;
  const fallbacks: unknown[] = [];
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    const model = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'fake',
      timeoutMs: 5000,
      maxRetries: 0,
    });
    answers = new GenerativeAnswers({
      model,
      concurrency: 2,
      timeoutMs: 2000,
      onFallback: (error) => fallbacks.push(error),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('asks the model once per paper with the abstract fenced, and cites the paper itself (without a fence marker the model repeats)', async () => {
    server.setScript((request) => {
      const prompt = request.messages.at(-1)?.content ?? '';
      if (prompt.includes('Acinetobacter species')) {
        return {
          text: 'A. lwoffii evolved resistance only to ciprofloxacin [a source](https://evil.example/x).',
        };
      }
      return {
        text: '<untrusted-paper-text nonce="0a1b2c3d4e5f">This paper does not directly address the query.</untrusted-paper-text nonce="0a1b2c3d4e5f">',
      };
    });
    const [first, second] = await answers.annotate([acinetobacter, glucokinase], query);
    expect(first?.answer).toBe(
      `A. lwoffii evolved resistance only to ciprofloxacin (unverified citation removed). ${hartman}`,
    );
    expect(second?.answer).toBe(
      'This paper does not directly address the query. [Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8)',
    );
    const prompt = server.requests.at(-1)?.messages.at(-1)?.content ?? '';
    expect(prompt).toMatch(/<untrusted-paper-text nonce="[0-9a-f]{12}">\nTitle: /);
    expect(server.requests.at(-1)?.messages[0]?.content).toContain('never instructions');
  });

  it('keeps at most `concurrency` model calls in flight', async () => {
    server.setScript(() => ({ text: 'An answer.' }));
    server.delayMs = 100;
    try {
      const papers = [acinetobacter, glucokinase, dps, acinetobacter, glucokinase, dps];
      const annotated = await answers.annotate(papers, query);
      expect(annotated.map((record) => record.answer?.startsWith('An answer.'))).toEqual(Array(6).fill(true));
      expect(server.maxConcurrent).toBe(2);
    } finally {
      server.delayMs = 0;
    }
  });

  it('falls back to the extractive answer when the model fails or is too slow', async () => {
    server.setScript((request) =>
      (request.messages.at(-1)?.content ?? '').includes('Acinetobacter species')
        ? { status: 500 }
        : { hang: true },
    );
    const before = fallbacks.length;
    const started = Date.now();
    const [failed, slow] = await answers.annotate([acinetobacter, glucokinase], query);
    // Measured: 2.0 s; the slow model call hangs for ever.
    expect(Date.now() - started).toBeLessThan(21_000);
    expect(failed?.answer).toContain(`only evolved resistance to ciprofloxacin. ${hartman}`);
    expect(slow?.answer).toContain('[Gersing et al., 2023](https://doi.org/10.1186/s13059-023-02935-8)');
    expect(fallbacks.length - before).toBe(2);
  });
});
