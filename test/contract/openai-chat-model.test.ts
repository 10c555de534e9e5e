import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OpenAiChatModel,
  type OpenAiChatModelOptions,
  reasoningModel,
} from '../../src/adapters/chat/openai-chat-model.js';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { runChatModelContract } from './chat-model.contract.js';

runChatModelContract(
  'OpenAI-compatible client',
  ({ baseUrl, timeoutMs }) =>
    new OpenAiChatModel({ baseUrl, apiKey: 'sk-test', model: 'fake-model', timeoutMs, maxRetries: 0 }),
);

describe('what the OpenAI-compatible client sends per model family', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAiServer([]);
  });
  afterAll(async () => {
    await server.close();
  });

  const ask = async (model: string, options: Partial<OpenAiChatModelOptions> = {}) => {
    server.setScript([{ text: 'done' }]);
    const chat = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model,
      timeoutMs: 5000,
      maxRetries: 0,
      ...options,
    });
    for await (const _ of chat.stream({ messages: [{ role: 'user', content: 'Q' }], maxTokens: 120 })) {
    }
    return server.requests.at(-1);
  };

  it('sends max_completion_tokens, and a temperature only to models that accept one', async () => {
    const plain = await ask('gpt-4o-mini', { temperature: 0.3 });
    expect(plain?.max_completion_tokens).toBe(120);
    expect(plain?.max_tokens).toBeUndefined();
    expect(plain?.temperature).toBe(0.3);
    for (const name of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'openai/o3']) {
      const sent = await ask(name, { temperature: 0.3 });
      expect(sent?.max_completion_tokens).toBe(120);
      expect(sent && 'temperature' in sent).toBe(false);
    }
  });

  it('sends max_tokens instead when configured for a server that knows only it', async () => {
    const sent = await ask('llama3.1:8b', { tokenLimitParameter: 'max_tokens' });
    expect(sent?.max_tokens).toBe(120);
    expect(sent?.max_completion_tokens).toBeUndefined();
  });

  it('tells reasoning families by name only', () => {
    expect(reasoningModel('o1-preview')).toBe(true);
    expect(reasoningModel('gpt-5.1')).toBe(true);
    expect(reasoningModel('gpt-4o')).toBe(false);
    expect(reasoningModel('llama3.1:8b')).toBe(false);
    expect(reasoningModel('qwen2.5:1.5b')).toBe(false);
    expect(reasoningModel('solar-pro')).toBe(false);
  });

  const searchTool = {
    name: 'search',
    description: 'Search papers',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  };
  const turn = async (chat: OpenAiChatModel, tools: boolean) => {
    const events = [];
    for await (const event of chat.stream({
      messages: [{ role: 'user', content: 'Q' }],
      maxTokens: 50,
      ...(tools ? { tools: [searchTool] } : {}),
    }))
      events.push(event);
    return events;
  };

  it('asks a server that cannot stream tool calls again unstreamed, and remembers (llama-cpp-python)', async () => {
    server.setScript([
      { status: 500, message: 'Automatic streaming tool choice is not supported' },
      { toolCalls: [{ name: 'search', arguments: { query: 'aspirin' }, id: 'call_a' }] },
      { toolCalls: [{ name: 'search', arguments: { query: 'more' }, id: 'call_b' }] },
      { text: 'The answer.' },
    ]);
    const before = server.requests.length;
    const chat = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'smollm',
      timeoutMs: 5000,
      maxRetries: 0,
    });
    const first = await turn(chat, true);
    expect(first.filter((event) => event.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'call_a', name: 'search', arguments: '{"query":"aspirin"}' } },
    ]);
    // The unstreamed answer carries the server's usage: not an estimate.
    expect(first.at(-1)).toMatchObject({
      type: 'finish',
      reason: 'tool_calls',
      usage: { promptTokens: 100, completionTokens: 20 },
      usageEstimated: false,
    });
    await turn(chat, true);
    const answer = await turn(chat, false);
    expect(
      answer
        .filter((event) => event.type === 'text')
        .map((event) => event.text)
        .join(''),
    ).toBe('The answer.');
    expect(server.requests.slice(before).map((request) => Boolean(request.stream))).toEqual([
      true,
      false,
      false,
      true,
    ]);
  });

  it('asks again unstreamed when a streamed tool turn ends without a chunk (llama-cpp-python 0.3.16); an empty text stream is an error', async () => {
    server.setScript([
      { emptyStream: true },
      { toolCalls: [{ name: 'search', arguments: { query: 'aspirin' }, id: 'call_a' }] },
      { emptyStream: true },
    ]);
    const before = server.requests.length;
    const chat = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'smollm',
      timeoutMs: 5000,
      maxRetries: 0,
    });
    const events = await turn(chat, true);
    expect(events.filter((event) => event.type === 'tool_call')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls', usageEstimated: false });
    await expect(turn(chat, false)).rejects.toThrow(/without a chunk/);
    expect(server.requests.slice(before).map((request) => Boolean(request.stream))).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('asks turns with tools unstreamed from the start with streamToolTurns false; other errors stay errors', async () => {
    server.setScript([
      { toolCalls: [{ name: 'search', arguments: { query: 'x' } }] },
      { status: 500, message: 'boom' },
    ]);
    const before = server.requests.length;
    const chat = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'smollm',
      timeoutMs: 5000,
      maxRetries: 0,
      streamToolTurns: false,
    });
    await turn(chat, true);
    expect(server.requests.slice(before).map((request) => Boolean(request.stream))).toEqual([false]);
    const streaming = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'smollm',
      timeoutMs: 5000,
      maxRetries: 0,
    });
    await expect(turn(streaming, true)).rejects.toThrow(/HTTP 500/);
  });

  it('sends tool results as user messages when configured (a template that drops tool messages)', async () => {
    server.setScript([{ text: 'ok' }]);
    const chat = new OpenAiChatModel({
      baseUrl: server.baseUrl,
      model: 'smollm',
      timeoutMs: 5000,
      maxRetries: 0,
      toolResultRole: 'user',
    });
    for await (const _ of chat.stream({
      messages: [
        { role: 'user', content: 'Q' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'c1', name: 'search', arguments: '{"query":"x"}' }],
        },
        { role: 'tool', toolCallId: 'c1', content: 'RECORD 1' },
      ],
    })) {
    }
    const sent = server.requests.at(-1)?.messages ?? [];
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[2]?.content).toBe('Result of search({"query":"x"}):\nRECORD 1');
    expect(sent[1]?.tool_calls?.[0]?.id).toBe('c1');
    // llama-cpp-python refuses an assistant message whose content is null (HTTP 500).
    expect(sent[1]?.content).toBe('');
  });
});
