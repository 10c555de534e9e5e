import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { LlamaCppChatModel } from '../adapters/chat/llama-cpp-chat-model.js';
import { OpenAiChatModel } from '../adapters/chat/openai-chat-model.js';
import { ConfigError } from '../config/load-config.js';
import type { ChatProfile, ChatSettings } from '../config/sections/chat.js';
import type { Logger } from '../platform/logger.js';
import type { WorkTally } from '../platform/work-tally.js';
import type { ChatModel } from '../ports/chat-model.js';
import { meteredChatModel } from './metered-ports.js';

/** The configured chat model, counted into the work tally; `close` frees a local model. */
export interface OpenedChatModel {
  /** Absent without a chat model (ALEXANDRIA_CHAT_PROVIDER=none): answers are extractive. */
  model: ChatModel | undefined;
  close(): Promise<void>;
}

/**
 * One client for every caller of the configured chat model (the agent, generative answers,
 * comprehensive analyses): an OpenAI-compatible API, or a GGUF model run in-process by llama.cpp
 * (ALEXANDRIA_CHAT_PROVIDER=local) on `threads` threads. A local model is loaded (memory-mapped)
 * while a server starts (`preload`), so the first question does not wait for it.
 */
export function openChatModel(
  chat: ChatSettings,
  profile: ChatProfile,
  dependencies: { logger: Logger; work: WorkTally; threads: number; preload: boolean },
): OpenedChatModel {
  const { logger, work, threads } = dependencies;
  if (profile.provider === 'none') return { model: undefined, close: async () => {} };
  if (profile.provider === 'openai') {
    return { model: meteredChatModel(openAiChatModel(chat, profile), work), close: async () => {} };
  }
  if (!existsSync(chat.modelPath)) {
    throw new ConfigError([
      `ALEXANDRIA_CHAT_MODEL_PATH: no GGUF file at ${chat.modelPath} (run node scripts/setup-model.mjs, or set the path of a GGUF model)`,
    ]);
  }
  const local = new LlamaCppChatModel({
    modelPath: chat.modelPath,
    threads,
    contextTokens: chat.contextTokens,
    timeoutMs: profile.callTimeoutMs,
    temperature: chat.temperature,
    onLog: (level, message) => logger[level]({ model: basename(chat.modelPath) }, `llama.cpp: ${message}`),
  });
  if (dependencies.preload) {
    local.load().then(
      () => logger.info({ model: local.id, threads }, 'local chat model loaded'),
      (error) => logger.error({ err: error }, 'the local chat model could not be loaded'),
    );
  }
  return { model: meteredChatModel(local, work), close: () => local.close() };
}

/** An OpenAI-compatible chat API: ALEXANDRIA_CHAT_URL and ALEXANDRIA_CHAT_MODEL are required. */
function openAiChatModel(chat: ChatSettings, profile: ChatProfile): ChatModel {
  if (!chat.url) {
    throw new ConfigError(['ALEXANDRIA_CHAT_URL: required when ALEXANDRIA_CHAT_PROVIDER=openai']);
  }
  if (!chat.model) {
    throw new ConfigError([
      'ALEXANDRIA_CHAT_MODEL: required when ALEXANDRIA_CHAT_URL is set (the model name at that API)',
    ]);
  }
  return new OpenAiChatModel({
    baseUrl: chat.url,
    apiKey: chat.apiKey,
    model: chat.model,
    timeoutMs: profile.callTimeoutMs,
    maxRetries: chat.maxRetries,
    temperature: chat.temperature,
    tokenLimitParameter: chat.tokenLimitParameter,
    streamToolTurns: chat.streamToolTurns,
    toolResultRole: chat.toolResultRole,
  });
}
