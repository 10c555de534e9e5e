import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LlamaCppChatModel } from '../../src/adapters/chat/llama-cpp-chat-model.js';
import { chatModelDir, localChatModelFiles } from '../../src/config/sections/chat.js';
import type { EvalReport } from '../index.js';

/**
 * The local 1.5B model as the prompt evaluations ask it (2 threads, temperature 0), or the report
 * of an evaluation skipped because its weights are not set up.
 */
export function promptEvalModel(name: string): { model: LlamaCppChatModel } | { skipped: EvalReport } {
  const modelPath = join(chatModelDir(), localChatModelFiles['qwen2.5-1.5b']);
  if (!existsSync(modelPath))
    return {
      skipped: {
        name,
        metrics: {},
        summary: [
          `SKIPPED: no local model at ${modelPath} (node scripts/setup-model.mjs --chat-model qwen2.5-1.5b)`,
        ],
      },
    };
  return {
    model: new LlamaCppChatModel({
      modelPath,
      threads: 2,
      contextTokens: 4096,
      timeoutMs: 180_000,
      temperature: 0,
    }),
  };
}
