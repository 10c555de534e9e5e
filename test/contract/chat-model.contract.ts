import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, UpstreamError } from '../../src/domain/errors.js';
import type { ChatModel, ChatStreamEvent, ChatTurnRequest } from '../../src/ports/chat-model.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';

/** Builds the adapter under test against an OpenAI-compatible base URL. */
export type ChatModelFactory = (options: { baseUrl: string; timeoutMs: number }) => ChatModel;

async function collect(model: ChatModel, request: ChatTurnRequest): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of model.stream(request)) events.push(event);
  return events;
}

/**
 * The behaviour every ChatModel adapter must have, driven by the scripted OpenAI-compatible server:
 * text streams in order, tool calls come back whole, usage is reported, failures map to AppError
 * codes, and an abort reaches the upstream request.
 */
export function runChatModelContract(name: string, create: ChatModelFactory): void {
  describe(`ChatModel contract: ${name}`, () => {
    let server: FakeOpenAiServer;
    let model: ChatModel;
    beforeAll(async () => {
      server = await startFakeOpenAiServer();
      model = create({ baseUrl: server.baseUrl, timeoutMs: 5000 });
    });
    afterAll(async () => {
      await server.close();
    });

    it('streams text deltas in order, then one finish with the upstream usage', async () => {
      server.setScript([
        { text: ['Glucokinase ', 'senses ', 'glucose.'], promptTokens: 42, completionTokens: 7 },
      ]);
      const events = await collect(model, { messages: [{ role: 'user', content: 'What is GCK?' }] });
      expect(events.filter((event) => event.type === 'text').map((event) => event.text)).toEqual([
        'Glucokinase ',
        'senses ',
        'glucose.',
      ]);
      expect(events.at(-1)).toEqual({
        type: 'finish',
        reason: 'stop',
        usage: { promptTokens: 42, completionTokens: 7 },
        usageEstimated: false,
      });
    });

    it('reassembles a tool call whose arguments arrive in fragments', async () => {
      const args = { keywords: 'glucokinase variants', query: 'Which variants activate GCK?' };
      server.setScript([{ toolCalls: [{ id: 'call_abc', name: 'search_papers', arguments: args }] }]);
      const events = await collect(model, {
        messages: [{ role: 'user', content: 'Find GCK papers' }],
        tools: [
          { name: 'search_papers', description: 'Search', parameters: { type: 'object', properties: {} } },
        ],
      });
      const call = events.find((event) => event.type === 'tool_call');
      expect(call).toEqual({
        type: 'tool_call',
        call: { id: 'call_abc', name: 'search_papers', arguments: JSON.stringify(args) },
      });
      expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    });

    it('sends the conversation, tool calls and tool results in the wire format', async () => {
      server.setScript([{ text: 'done' }]);
      await collect(model, {
        messages: [
          { role: 'system', content: 'You are careful.' },
          { role: 'user', content: 'Q' },
          {
            role: 'assistant',
            content: null,
            toolCalls: [{ id: 'c1', name: 'read', arguments: '{"chunk":2}' }],
          },
          { role: 'tool', toolCallId: 'c1', content: '{"text":"chunk two"}' },
        ],
        tools: [{ name: 'read', description: 'Read a chunk', parameters: { type: 'object' } }],
        maxTokens: 300,
      });
      const sent = server.requests.at(-1);
      expect(sent?.stream).toBe(true);
      expect(sent?.max_completion_tokens).toBe(300);
      expect(sent?.max_tokens).toBeUndefined();
      expect(sent?.messages).toEqual([
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          // "", not null: llama-cpp-python refuses null (decision 0060).
          content: '',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"chunk":2}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"text":"chunk two"}' },
      ]);
      expect(sent?.tools?.[0]?.function.name).toBe('read');
    });

    it('maps a 5xx to a retryable upstream error and a 400 to a non-retryable one', async () => {
      server.setScript([
        { status: 503 },
        { status: 503 },
        { status: 503 },
        { status: 400, message: 'bad tools' },
      ]);
      const failure = await collect(model, { messages: [{ role: 'user', content: 'Q' }] }).catch(
        (error) => error,
      );
      expect(failure).toBeInstanceOf(UpstreamError);
      expect(failure).toMatchObject({ code: 'upstream_unavailable', retryable: true });
      server.setScript([{ status: 400, message: 'bad tools' }]);
      const refused = await collect(model, { messages: [{ role: 'user', content: 'Q' }] }).catch(
        (error) => error,
      );
      expect(refused).toMatchObject({ code: 'upstream_unavailable', upstreamStatus: 400, retryable: false });
      expect((refused as Error).message).toContain('bad tools');
    });

    it('maps an error frame in the middle of the stream to an upstream error', async () => {
      server.setScript([{ streamError: 'model crashed', textBefore: 'Half an ' }]);
      const seen: string[] = [];
      const failure = await (async () => {
        for await (const event of model.stream({ messages: [{ role: 'user', content: 'Q' }] })) {
          if (event.type === 'text') seen.push(event.text);
        }
      })().catch((error) => error);
      expect(seen).toEqual(['Half an ']);
      expect(failure).toBeInstanceOf(AppError);
      expect(failure).toMatchObject({ code: 'upstream_unavailable' });
      expect((failure as Error).message).toContain('model crashed');
    });

    it('gives up with a timeout error when the upstream does not answer in time', async () => {
      server.setScript([{ hang: true }]);
      const started = Date.now();
      const failure = await collect(model, {
        messages: [{ role: 'user', content: 'Q' }],
        timeoutMs: 300,
      }).catch((error) => error);
      expect(failure).toMatchObject({ code: 'timeout' });
      // Measured: 0.34 s; the upstream never answers.
      expect(Date.now() - started).toBeLessThan(3500);
    });

    it('cancels the upstream request when the caller aborts', async () => {
      server.setScript([{ hang: true }]);
      const before = server.abortedRequests;
      const controller = new AbortController();
      const reason = new Error('client went away');
      setTimeout(() => controller.abort(reason), 100);
      const failure = await collect(model, {
        messages: [{ role: 'user', content: 'Q' }],
        signal: controller.signal,
      }).catch((error) => error);
      expect(failure).toBe(reason);
      await expect.poll(() => server.abortedRequests, { timeout: 2000 }).toBe(before + 1);
    });

    it('fails with a timeout, not a silently cut answer, when the deadline falls mid-stream', async () => {
      server.setScript([{ text: ['one ', 'two ', 'three ', 'four ', 'five '], pieceDelayMs: 150 }]);
      const seen: string[] = [];
      const failure = await (async () => {
        for await (const event of model.stream({
          messages: [{ role: 'user', content: 'Q' }],
          timeoutMs: 400,
        })) {
          if (event.type === 'text') seen.push(event.text);
        }
      })().catch((error) => error);
      expect(failure).toMatchObject({ code: 'timeout' });
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.length).toBeLessThan(5);
    });

    it('reports an unreachable endpoint as upstream_unavailable', async () => {
      const unreachable = create({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2000 });
      const failure = await collect(unreachable, { messages: [{ role: 'user', content: 'Q' }] }).catch(
        (error) => error,
      );
      expect(failure).toMatchObject({ code: 'upstream_unavailable' });
    });
  });
}
