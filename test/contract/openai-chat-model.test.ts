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
});
