import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultChatModelPath } from '../../src/config/sections/chat.js';
import {
  llamaServerInstalled,
  llamaServerPython,
  startLlamaServer,
} from '../../test/helpers/llama-server.js';
import { type ChatWireRecorder, startChatWireRecorder } from './chat-wire-recorder.js';

/** The agent's chat model behind the OpenAI-compatible adapter, for `--provider openai`. */
export interface OpenAiBackend {
  /** The GGUF served (or the model name at ALEXANDRIA_CHAT_URL). */
  model: string;
  /** Environment for the container: provider openai, the recorder's URL, the model name. */
  env: Record<string, string>;
  /** Where the model runs, for the report's name. */
  server: string;
  /** What crossed the wire. */
  wire: ChatWireRecorder;
  close(): Promise<void>;
}

/**
 * `ALEXANDRIA_CHAT_URL` + `ALEXANDRIA_CHAT_MODEL` when set (any OpenAI-compatible server); else
 * llama-cpp-python's server started on loopback serving `ALEXANDRIA_CHAT_MODEL_PATH` (default: the
 * local chat model) with chatml-function-calling, on `EVAL_OPENAI_SERVER_THREADS` threads (default
 * 1: the machine is shared). A pass-through records each exchange. Returns why not when neither is
 * available.
 */
export async function startOpenAiBackend(): Promise<OpenAiBackend | string> {
  const url = process.env.ALEXANDRIA_CHAT_URL?.trim();
  if (url) {
    const model = process.env.ALEXANDRIA_CHAT_MODEL?.trim();
    if (!model) return 'ALEXANDRIA_CHAT_URL is set without ALEXANDRIA_CHAT_MODEL';
    const wire = await startChatWireRecorder(url, wireLog());
    return {
      model,
      env: {
        ALEXANDRIA_CHAT_PROVIDER: 'openai',
        ALEXANDRIA_CHAT_URL: wire.baseUrl,
        ALEXANDRIA_CHAT_MODEL: model,
      },
      server: url,
      wire,
      close: () => wire.close(),
    };
  }
  const modelPath = process.env.ALEXANDRIA_CHAT_MODEL_PATH?.trim() || defaultChatModelPath();
  if (!existsSync(modelPath)) return `no GGUF at ${modelPath} (node scripts/setup-model.mjs)`;
  if (!llamaServerInstalled()) {
    return `llama-cpp-python's server is not installed at ${llamaServerPython()} and ALEXANDRIA_CHAT_URL is unset (docs/decisions/0060-openai-compatible-server.md)`;
  }
  const threads = Number(process.env.EVAL_OPENAI_SERVER_THREADS?.trim() || '1');
  const server = await startLlamaServer({ modelPath, threads, contextTokens: 8192 });
  // Each exchange also goes to a file: a run cut short keeps what crossed the wire.
  const wire = await startChatWireRecorder(server.baseUrl, wireLog());
  return {
    model: modelPath.split('/').pop() ?? modelPath,
    env: {
      ALEXANDRIA_CHAT_PROVIDER: 'openai',
      ALEXANDRIA_CHAT_URL: wire.baseUrl,
      ALEXANDRIA_CHAT_MODEL: server.model,
      // llama-cpp-python 0.3 reads only max_tokens: with max_completion_tokens it writes on unbounded.
      ALEXANDRIA_CHAT_TOKEN_LIMIT_PARAMETER: 'max_tokens',
      // Its chatml-function-calling template renders `tool` messages empty.
      ALEXANDRIA_CHAT_TOOL_RESULT_ROLE: process.env.ALEXANDRIA_CHAT_TOOL_RESULT_ROLE ?? 'user',
      // A small GGUF on CPU, as the local provider runs it: the compact tools, a search first.
      ALEXANDRIA_AGENT_TOOL_SET: process.env.ALEXANDRIA_AGENT_TOOL_SET ?? 'compact',
      ALEXANDRIA_AGENT_SEARCH_FIRST: process.env.ALEXANDRIA_AGENT_SEARCH_FIRST ?? 'true',
    },
    server: `llama-cpp-python 0.3.16 llama_cpp.server, chatml-function-calling, ${threads} thread(s)`,
    wire,
    async close() {
      await wire.close();
      await server.close();
    },
  };
}

function wireLog(): string {
  const label = process.env.EVAL_AGENT_LABEL?.trim();
  mkdirSync('.eval', { recursive: true });
  return join('.eval', `agent-openai-wire${label ? `-${label}` : ''}.jsonl`);
}
