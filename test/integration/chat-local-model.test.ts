import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LlamaCppChatModel } from '../../src/adapters/chat/llama-cpp-chat-model.js';
import { chatModelDir, localChatModelFiles } from '../../src/config/sections/chat.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The research agent end to end on the embedded local model (ALEXANDRIA_CHAT_PROVIDER=local), built
 * by the composition root like in production, driven by the official `openai` client over loopback.
 * The model is SmolLM2-135M (installed by `node scripts/setup-model.mjs`): far too weak to answer
 * well, so these tests hold the wiring and the invariants (a constrained tool step reaches the
 * service's search, the answer streams, every link in it is a record the run retrieved), not quality.
 */
const modelPath = join(chatModelDir(), localChatModelFiles['smollm2-135m']);

function records(): Paper[] {
  const record = (title: string, abstract: string, doi: string, authors: string[]): Paper => ({
    ...emptyPaper(title),
    abstract,
    year: 2023,
    authors,
    doi,
    url: `https://doi.org/${doi}`,
  });
  return [
    record(
      'Biofilm formation and antibiotic tolerance in Pseudomonas aeruginosa',
      'Pseudomonas aeruginosa biofilms tolerate antibiotics up to 1000-fold better than planktonic cells, because the matrix slows diffusion and dormant persister cells survive treatment.',
      '10.1000/biofilm-tolerance',
      ['Ana Lopez', 'Wei Chen'],
    ),
    record(
      'Quorum sensing inhibitors reduce Pseudomonas aeruginosa biofilm antibiotic tolerance',
      'Inhibiting the las and rhl quorum sensing systems made Pseudomonas aeruginosa biofilms more susceptible to tobramycin in a mouse wound model.',
      '10.1000/quorum-biofilm',
      ['Maria Rossi'],
    ),
  ];
}

describe('the chat endpoint on the local model (SmolLM2-135M via llama.cpp)', () => {
  let t: TestApp;
  let client: OpenAI;
  let allowed: Set<string>;
  beforeAll(async () => {
    expect(existsSync(modelPath), `${modelPath} (run node scripts/setup-model.mjs)`).toBe(true);
    t = await createTestApp({
      ALEXANDRIA_CHAT_PROVIDER: 'local',
      ALEXANDRIA_CHAT_MODEL_PATH: modelPath,
      ALEXANDRIA_CHAT_TEMPERATURE: '0',
      ALEXANDRIA_CHAT_CONTEXT_TOKENS: '4096',
      ALEXANDRIA_AGENT_MAX_STEPS: '2',
      ALEXANDRIA_AGENT_MAX_TOKENS_PER_CALL: '160',
      ALEXANDRIA_CPU_THREADS: '2',
    });
    const papers = records();
    await t.container.stores.index.upsert(papers);
    allowed = new Set(papers.map((paper) => paper.url as string));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/api`,
      apiKey: t.key,
      maxRetries: 0,
      timeout: 60_000,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  // Generous limits: on a busy 2-core machine the first step (model load, a prompt of ~1,000
  // tokens) has taken 10-20 s. This run comes first: on a fresh context the model's (greedy) choice
  // of action does not depend on what an earlier run left evaluated.
  it('streams a run (the search first, then constrained steps): every link is a retrieved record', {
    timeout: 120_000,
  }, async () => {
    const stream = await client.chat.completions.create({
      model: 'alexandria-research',
      messages: [
        {
          role: 'user',
          content: 'Search the literature: why do Pseudomonas aeruginosa biofilms tolerate antibiotics?',
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const reasoning = chunks
      .map(
        (chunk) =>
          (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '',
      )
      .join('');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    // On the local model the agent searches before the model's first step (compact tool set); what
    // the 135M model does next is its own choice (the constrained tool call itself is pinned down by
    // the adapter's contract test).
    expect(reasoning).toMatch(/^Searching papers: [^\n]*(Pseudomonas|biofilms)/m);
    expect(content.trim().length).toBeGreaterThan(0);
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toHaveLength(1);
    // Audited citations: whatever the small model wrote, every link left points at a retrieved record.
    const links = [...content.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((match) => match[1]);
    for (const link of links) expect(allowed, `${link} in:\n${content}`).toContain(link);
    const usage = chunks.at(-1)?.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(100);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('reads a follow-up against the previous turn: "them" is searched as the earlier subject', {
    timeout: 120_000,
  }, async () => {
    const stream = await client.chat.completions.create({
      model: 'alexandria-research',
      messages: [
        { role: 'user', content: 'Why do Pseudomonas aeruginosa biofilms tolerate antibiotics?' },
        {
          role: 'assistant',
          content:
            'Their matrix slows diffusion and persister cells survive [Lopez and Chen, 2023](https://doi.org/10.1000/biofilm-tolerance).',
        },
        { role: 'user', content: 'Which treatments make them more susceptible?' },
      ],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const reasoning = chunks
      .map(
        (chunk) =>
          (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '',
      )
      .join('');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    // The compact tool set searches first, with the follow-up's words and the earlier subject's.
    expect(reasoning).toMatch(/^Searching papers: [^\n]*treatments[^\n]*(Pseudomonas|aeruginosa|biofilms)/m);
    expect(content.trim().length).toBeGreaterThan(0);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason).filter(Boolean)).toHaveLength(1);
    const links = [...content.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((match) => match[1]);
    for (const link of links) expect(allowed, `${link} in:\n${content}`).toContain(link);
  });

  it('stops the model when the client goes away', { timeout: 120_000 }, async () => {
    const turns: Array<{ signal: AbortSignal | undefined; finished: boolean }> = [];
    const controller = new AbortController();
    const original = LlamaCppChatModel.prototype.stream;
    const spy = vi.spyOn(LlamaCppChatModel.prototype, 'stream').mockImplementation(async function* (
      this: LlamaCppChatModel,
      request,
    ) {
      const turn = { signal: request.signal, finished: false };
      turns.push(turn);
      // The client goes away while the model computes (the run searched first, before any model call).
      if (turns.length === 1) setTimeout(() => controller.abort(), 300);
      yield* original.call(this, request);
      turn.finished = true;
    });
    const stream = await client.chat.completions.create(
      {
        model: 'alexandria-research',
        messages: [
          { role: 'user', content: 'Search the literature on quorum sensing inhibitors in biofilms.' },
        ],
        stream: true,
      },
      { signal: controller.signal },
    );
    let finished = false;
    // The client ends its iteration quietly (or throws) when its signal aborts mid-stream.
    await (async () => {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.finish_reason) finished = true;
      }
    })().catch(() => undefined);
    expect(finished).toBe(false);
    // The disconnect reached the run's model calls: the one in flight stopped without finishing,
    // and no other started (the tool in flight, if any, was cancelled with the run).
    await expect.poll(() => turns.some((turn) => turn.signal?.aborted), { timeout: 5000 }).toBe(true);
    await expect
      .poll(() => turns.every((turn) => turn.finished || turn.signal?.aborted), { timeout: 5000 })
      .toBe(true);
    const started = turns.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(turns).toHaveLength(started);
    spy.mockRestore();
  });
});

describe('configuration of the local provider', () => {
  it('refuses a missing GGUF file at startup, naming the variable', async () => {
    await expect(
      createTestApp({
        ALEXANDRIA_CHAT_PROVIDER: 'local',
        ALEXANDRIA_CHAT_MODEL_PATH: '/nonexistent/model.gguf',
      }),
    ).rejects.toThrow(/ALEXANDRIA_CHAT_MODEL_PATH: no GGUF file at \/nonexistent\/model\.gguf/);
  });

  it('refuses the openai provider without its URL', async () => {
    await expect(createTestApp({ ALEXANDRIA_CHAT_PROVIDER: 'openai' })).rejects.toThrow(
      /ALEXANDRIA_CHAT_URL: required when ALEXANDRIA_CHAT_PROVIDER=openai/,
    );
  });
});
