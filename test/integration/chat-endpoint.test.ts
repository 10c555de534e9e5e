import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/agent-types.js';
import { ResearchService } from '../../src/agent/research-service.js';
import { AppError } from '../../src/domain/errors.js';
import { FakeFullTextReader, FakePaperSearch } from '../fakes/agent-service-fakes.js';
import { acinetobacterChunks, researchPapers } from '../fakes/research-corpus.js';
import { type ChatTestApp, startChatApp } from '../helpers/chat-app.js';

const question =
  'Acinetobacter lwoffii has been evolved in the lab to be resistant to which of these antibiotics?';
const keyPassage =
  'A. baumannii readily evolved resistance to meropenem, ciprofloxacin, and gentamicin, but A. lwoffii only evolved resistance to ciprofloxacin.';
const citation = '[Hartman et al., 2024](https://doi.org/10.1128/msphere.00109-24)';

let t: ChatTestApp;
let search: FakePaperSearch;
let reader: FakeFullTextReader;
beforeAll(async () => {
  search = new FakePaperSearch(researchPapers);
  reader = new FakeFullTextReader({ 'PROJ:gpt/doc_msphere': acinetobacterChunks });
  t = await startChatApp({
    env: { ALEXANDRIA_CHAT_KEEPALIVE_MS: '50', ALEXANDRIA_CORS_ORIGINS: 'https://chat.example' },
    tools: () => ({ search, fullText: reader }),
  });
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/models', () => {
  it('lists our model for the official client', async () => {
    const models = [];
    for await (const model of t.client.models.list()) models.push(model);
    expect(models).toEqual([
      { id: 'alexandria-research', object: 'model', created: expect.any(Number), owned_by: 'alexandria' },
    ]);
    expect((await t.client.models.retrieve('alexandria-research')).id).toBe('alexandria-research');
    await expect(t.client.models.retrieve('gpt-4o')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('POST /api/chat/completions with the openai client', () => {
  it('answers without streaming: one chat.completion with the cited passage and usage', async () => {
    const completion = await t.client.chat.completions.create({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: question },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('alexandria-research');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    const content = completion.choices[0]?.message.content ?? '';
    expect(content).toContain(`“${keyPassage}” ${citation}`);
    expect(content).toContain('**References**');
    expect(content).toContain(`1. ${citation} — Differential development of antibiotic resistance`);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(50);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  it('streams: role first, reasoning progress, content pieces, stop, usage, [DONE]', async () => {
    const stream = await t.client.chat.completions.create({
      model: 'anything',
      messages: [{ role: 'user', content: question }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(
      chunks.every(
        (chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'alexandria-research',
      ),
    ).toBe(true);
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    const reasoning = chunks
      .map(
        (chunk) =>
          (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '',
      )
      .join('');
    expect(reasoning).toContain('Searching for: Acinetobacter, lwoffii');
    expect(reasoning).toContain('Reading the full text of: Differential development');
    const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(content).toContain(`“${keyPassage}” ${citation}`);
    const finish = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish.map((chunk) => chunk.choices[0]?.finish_reason)).toEqual(['stop']);
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('parses our errors into its error classes, naming the parameter', async () => {
    const wrongKey = new OpenAI({ baseURL: `${t.url}/api`, apiKey: 'alx_wrong', maxRetries: 0 });
    await expect(
      wrongKey.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: question }] }),
    ).rejects.toBeInstanceOf(AuthenticationError);

    const badRole = await t.client.chat.completions
      .create({
        model: 'x',
        messages: [
          { role: 'user', content: question },
          { role: 'tool', content: 'x', tool_call_id: 'c1' },
        ],
      })
      .catch((error: unknown) => error);
    expect(badRole).toBeInstanceOf(BadRequestError);
    expect((badRole as BadRequestError).param).toBe('messages[1].role');
    expect((badRole as BadRequestError).message).toContain('messages[1].role');

    // Text parts are read (chat-details.test.ts); an image part is a 400 naming it.
    const notText = await t.client.chat.completions
      .create({
        model: 'x',
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }] },
        ],
      })
      .catch((error: unknown) => error);
    expect(notText).toBeInstanceOf(BadRequestError);
    expect((notText as BadRequestError).param).toBe('messages[0].content[0]');

    const noQuestion = await t.client.chat.completions
      .create({ model: 'x', messages: [{ role: 'system', content: 'Be brief.' }], stream: true })
      .catch((error: unknown) => error);
    expect(noQuestion).toBeInstanceOf(BadRequestError);
    expect((noQuestion as BadRequestError).param).toBe('messages');
  });
});

describe('the SSE wire format', () => {
  it('streams on body.stream even with Accept: application/json, keeping CORS and the request id', async () => {
    const response = await fetch(`${t.url}/api/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        accept: 'application/json',
        origin: 'https://chat.example',
        'x-request-id': 'trace-chat-1',
      },
      body: JSON.stringify({ model: 'x', stream: true, messages: [{ role: 'user', content: question }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://chat.example');
    expect(response.headers.get('x-request-id')).toBe('trace-chat-1');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const body = await response.text();
    const frames = body.split('\n\n').filter((frame) => frame.startsWith('data: '));
    expect(frames.at(-1)).toBe('data: [DONE]');
    for (const frame of frames.slice(0, -1)) expect(() => JSON.parse(frame.slice(6))).not.toThrow();
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('sends keep-alive comments while a tool step is slow', async () => {
    reader.delayMs = 300;
    try {
      const response = await fetch(`${t.url}/api/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: question }] }),
      });
      const body = await response.text();
      expect(body).toContain(': keep-alive\n\n');
      expect(body).toContain(keyPassage.slice(0, 40));
    } finally {
      reader.delayMs = 0;
    }
  });

  it('aborts the run and the tool call in flight when the client disconnects', async () => {
    reader.delayMs = 10_000;
    const abortedBefore = reader.aborted;
    const controller = new AbortController();
    try {
      const response = await fetch(`${t.url}/api/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: question }] }),
        signal: controller.signal,
      });
      const streamReader = response.body?.getReader();
      let seen = '';
      while (!seen.includes('Reading the full text')) {
        const { value } = (await streamReader?.read()) ?? {};
        seen += new TextDecoder().decode(value);
      }
      controller.abort();
      await expect.poll(() => reader.aborted, { timeout: 3000 }).toBe(abortedBefore + 1);
      const call = reader.calls.at(-1);
      expect(call?.signal?.aborted).toBe(true);
    } finally {
      reader.delayMs = 0;
    }
  });
});

describe('a client that gives up on a non-streamed completion', () => {
  it('aborts the run and the tool call in flight', async () => {
    reader.delayMs = 10_000;
    const abortedBefore = reader.aborted;
    const callsBefore = reader.calls.length;
    const controller = new AbortController();
    try {
      const pending = fetch(`${t.url}/api/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: question }] }),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      await expect.poll(() => reader.calls.length, { timeout: 5000 }).toBeGreaterThan(callsBefore);
      controller.abort();
      await pending;
      await expect.poll(() => reader.aborted, { timeout: 3000 }).toBe(abortedBefore + 1);
    } finally {
      reader.delayMs = 0;
    }
  });
});

describe('an error after the headers', () => {
  let failing: ChatTestApp;
  beforeAll(async () => {
    failing = await startChatApp({
      research: () => {
        const service = new ResearchService({
          modelName: 'alexandria-research',
          tools: {},
          budgets: {
            maxSteps: 1,
            maxTokens: 1,
            timeLimitMs: 1000,
            toolTimeoutMs: 1000,
            maxToolCallsPerStep: 1,
            maxTokensPerCall: 1,
          },
        });
        service.run = async function* (): AsyncIterable<AgentEvent> {
          yield { type: 'progress', text: 'Searching…\n' };
          yield { type: 'content', text: 'Partial answer' };
          throw new AppError('upstream_unavailable', 'The index went away');
        };
        return service;
      },
    });
  });
  afterAll(async () => {
    await failing.close();
  });

  it('is one data: {"error": …} frame, then the stream closes (the client raises it)', async () => {
    const response = await fetch(`${failing.url}/api/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${failing.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'q' }] }),
    });
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(JSON.parse(frames.at(-1)?.slice(6) ?? '')).toEqual({
      error: {
        message: 'The index went away',
        type: 'upstream_error',
        code: 'upstream_unavailable',
        param: null,
      },
    });
    expect(frames.some((frame) => frame.includes('[DONE]'))).toBe(false);

    const stream = await failing.client.chat.completions.create({
      model: 'x',
      stream: true,
      messages: [{ role: 'user', content: 'q' }],
    });
    let content = '';
    const failure = await (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? '';
    })().catch((error: unknown) => error);
    expect(content).toBe('Partial answer');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as Error).message).toContain('The index went away');
  });
});
