import { OpenAiChatModel } from '../../src/adapters/chat/openai-chat-model.js';
import { runChatModelContract } from './chat-model.contract.js';

runChatModelContract(
  'OpenAI-compatible client',
  ({ baseUrl, timeoutMs }) =>
    new OpenAiChatModel({ baseUrl, apiKey: 'sk-test', model: 'fake-model', timeoutMs, maxRetries: 0 }),
);
