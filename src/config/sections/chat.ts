import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { z } from 'zod';
import {
  booleanText,
  envVar,
  nonNegativeInt,
  optionalText,
  positiveInt,
  type SectionValues,
  urlText,
} from '../env-var.js';

/** GGUF files `node scripts/setup-model.mjs` installs into the chat model folder (the larger is asked for). */
export const localChatModelFiles = {
  'qwen2.5-1.5b': 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  'smollm2-135m': 'SmolLM2-135M-Instruct-Q4_1.gguf',
} as const;

/** The folder `node scripts/setup-model.mjs` installs chat models into. */
export function chatModelDir(environment: Record<string, string | undefined> = process.env): string {
  const cacheHome = environment.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache');
  return join(cacheHome, 'alexandria', 'models', 'chat');
}

/**
 * The local chat model used when `ALEXANDRIA_CHAT_MODEL_PATH` is unset: in
 * `${XDG_CACHE_HOME:-~/.cache}/alexandria/models/chat/`, Qwen2.5-Coder-1.5B when setup installed it,
 * else SmolLM2-135M (always installed, too weak to answer well). Read here because src/config is the
 * only reader of the environment.
 */
export function defaultChatModelPath(environment: Record<string, string | undefined> = process.env): string {
  const dir = chatModelDir(environment);
  const larger = join(dir, localChatModelFiles['qwen2.5-1.5b']);
  return existsSync(larger) ? larger : join(dir, localChatModelFiles['smollm2-135m']);
}

/**
 * The research agent behind `POST /api/chat/completions` and the answers of `generative_mode=true`.
 * Without `ALEXANDRIA_CHAT_URL` no model is used: answers are extractive (quoted from the papers).
 */
export const chatSection = {
  provider: envVar('ALEXANDRIA_CHAT_PROVIDER', z.enum(['none', 'openai', 'local']).optional(), {
    description:
      'Chat model of the research agent: openai (an OpenAI-compatible API at ALEXANDRIA_CHAT_URL), local (a GGUF model run in-process by llama.cpp, ALEXANDRIA_CHAT_MODEL_PATH) or none (extractive answers). Unset: openai when ALEXANDRIA_CHAT_URL is set, else none.',
  }),
  modelPath: envVar(
    'ALEXANDRIA_CHAT_MODEL_PATH',
    z
      .string()
      .trim()
      .optional()
      .transform((value) => (value ? value : defaultChatModelPath())),
    {
      description:
        'GGUF file of the local chat model (ALEXANDRIA_CHAT_PROVIDER=local); any instruction-tuned GGUF works. Default: in $XDG_CACHE_HOME/alexandria/models/chat/, Qwen2.5-Coder-1.5B-Instruct Q4_K_M when installed (node scripts/setup-model.mjs --chat-model qwen2.5-1.5b), else SmolLM2-135M-Instruct (always installed; too weak for real answers).',
    },
  ),
  threads: envVar('ALEXANDRIA_CHAT_THREADS', nonNegativeInt, {
    default: '0',
    description:
      'CPU threads llama.cpp computes with (local provider); 0 = its share of ALEXANDRIA_CPU_THREADS (docs/decisions/0035-local-chat-model.md).',
  }),
  contextTokens: envVar('ALEXANDRIA_CHAT_CONTEXT_TOKENS', z.coerce.number().int().min(512).max(131072), {
    default: '8192',
    description:
      "Context window of the local chat model in tokens (at most the model's own); an agent run longer than this drops its oldest tool results.",
  }),
  temperature: envVar('ALEXANDRIA_CHAT_TEMPERATURE', z.coerce.number().min(0).max(2), {
    default: '0.2',
    description: 'Sampling temperature of the chat model (both providers); 0 = always the likeliest token.',
  }),
  url: envVar('ALEXANDRIA_CHAT_URL', urlText.optional(), {
    description:
      'Base URL of an OpenAI-compatible chat API (…/v1): OpenAI, vLLM, Ollama (http://localhost:11434/v1), llama.cpp server. Unset: answers are extractive, no model.',
  }),
  apiKey: envVar('ALEXANDRIA_CHAT_API_KEY', optionalText, {
    secret: true,
    description: 'API key of the chat API (local servers accept none).',
  }),
  model: envVar('ALEXANDRIA_CHAT_MODEL', optionalText, {
    description:
      'Model name at the chat API (e.g. gpt-4o-mini, llama3.1:8b); required with ALEXANDRIA_CHAT_URL. It must support tool calling.',
  }),
  tokenLimitParameter: envVar(
    'ALEXANDRIA_CHAT_TOKEN_LIMIT_PARAMETER',
    z.enum(['max_completion_tokens', 'max_tokens']),
    {
      default: 'max_completion_tokens',
      description:
        "The request field that carries the answer limit to the OpenAI-compatible chat API: max_completion_tokens (OpenAI, required by its reasoning models; vLLM, llama.cpp's llama-server) or max_tokens (servers that know only it, such as llama-cpp-python's server, which ignores max_completion_tokens and then writes until its context is full).",
    },
  ),
  streamToolTurns: envVar('ALEXANDRIA_CHAT_STREAM_TOOLS', booleanText, {
    default: 'true',
    description:
      'Stream the OpenAI-compatible chat API\'s turns that offer tools. A server that refuses (llama-cpp-python: "Automatic streaming tool choice is not supported") is asked unstreamed from then on; false asks it so from the start (docs/decisions/0060-openai-compatible-server.md).',
  }),
  toolResultRole: envVar('ALEXANDRIA_CHAT_TOOL_RESULT_ROLE', z.enum(['tool', 'user']), {
    default: 'tool',
    description:
      "The role the research agent's tool results are sent in to the OpenAI-compatible chat API: tool (the API's own) or user (\"Result of search(…):\" and the text) for a server whose prompt template drops tool messages, such as llama-cpp-python's chatml-function-calling (decision 0060).",
  }),
  modelName: envVar('ALEXANDRIA_CHAT_MODEL_NAME', z.string().trim().min(1).max(100), {
    default: 'alexandria-research',
    description:
      "Model name the chat endpoint reports and GET /api/models lists (the request's model field is ignored).",
  }),
  timeoutMs: envVar('ALEXANDRIA_CHAT_TIMEOUT_MS', positiveInt.optional(), {
    description:
      'Deadline of one call to the chat model, in milliseconds (waiting for the local model included). Unset: 60000, or 300000 with the local provider (a step of the 1.5B model on 2 busy cores takes 30-60 s).',
  }),
  maxRetries: envVar('ALEXANDRIA_CHAT_MAX_RETRIES', nonNegativeInt, {
    default: '2',
    description: 'Retries of a failed chat-model call before it streams (429, 5xx, connection errors).',
  }),
  maxSteps: envVar('ALEXANDRIA_AGENT_MAX_STEPS', positiveInt.optional(), {
    description:
      'Most model calls of one agent run; the last is told to answer without tools. Unset: 8, or 4 with the local provider (it searches first, and a small model that keeps stepping rarely improves its answer).',
  }),
  maxTokens: envVar('ALEXANDRIA_AGENT_MAX_TOKENS', positiveInt, {
    default: '60000',
    description:
      'Token budget of one agent run (prompt + completion, all calls); once spent, the next call must answer.',
  }),
  maxTokensPerCall: envVar('ALEXANDRIA_AGENT_MAX_TOKENS_PER_CALL', positiveInt, {
    default: '1500',
    description:
      'Most tokens the model writes in one agent call (a step or the answer); a local model writes about 10-40 a second on CPU.',
  }),
  maxAnswerTokens: envVar('ALEXANDRIA_AGENT_ANSWER_TOKENS', positiveInt.optional(), {
    description:
      'Most tokens of the research agent\'s answer (the prompt tells the model about 40 % as many words; an answer cut short ends with "…"); an answer led by a yes/no verdict stops at 240. Unset: 320 with the local provider (writing is most of a run on CPU), ALEXANDRIA_AGENT_MAX_TOKENS_PER_CALL otherwise.',
  }),
  timeLimitMs: envVar('ALEXANDRIA_AGENT_TIME_LIMIT_MS', positiveInt.optional(), {
    description:
      'Wall-clock limit of one agent run, in milliseconds; past it the answer is composed from what was retrieved. Unset: 120000, or 600000 with the local provider.',
  }),
  answerAfterMs: envVar('ALEXANDRIA_AGENT_ANSWER_AFTER_MS', positiveInt.optional(), {
    description:
      'Soft time budget of one agent run, in milliseconds: a model step that starts past it must write the answer (no more tool calls), so a slow model ends its search in time to answer. Unset: 45000 with the local provider, none otherwise.',
  }),
  answerByMs: envVar('ALEXANDRIA_AGENT_ANSWER_BY_MS', positiveInt.optional(), {
    description:
      "When the research agent's answer should begin at the latest, in milliseconds into a run: a tool step is not started when the run's longest step so far would end past it (the model answers instead). Unset: 50000 with the local provider, none otherwise.",
  }),
  toolSet: envVar('ALEXANDRIA_AGENT_TOOL_SET', z.enum(['full', 'compact']).optional(), {
    description:
      'Tools and system prompt of the research agent: full (every tool, long results) or compact (search, your projects, ask a PDF; 4 records, abstracts cut at 1,200 characters, a short prompt). Unset: compact with the local provider, full otherwise (docs/decisions/0035-local-chat-model.md).',
  }),
  searchFirst: envVar('ALEXANDRIA_AGENT_SEARCH_FIRST', booleanText.optional(), {
    description:
      "Search with the question's keywords before the research agent's first model call (as if the model had asked for it): the first progress line streams at once and a slow model skips one step. Unset: with the compact tool set.",
  }),
  toolTimeoutMs: envVar('ALEXANDRIA_AGENT_TOOL_TIMEOUT_MS', positiveInt, {
    default: '30000',
    description: 'Deadline of one agent tool call (search, read, ask a PDF), in milliseconds.',
  }),
  readRemotePdfs: envVar('ALEXANDRIA_AGENT_READ_REMOTE_PDFS', booleanText.optional(), {
    description:
      'Let the research agent fetch and read the open-access PDFs of search results (PDF_URL:). Unset: yes when upstream sources are on (the default); with ALEXANDRIA_SOURCES=none (offline) it reads only what is stored here (project PDFs, cached parses) and tries no host. true/false force it.',
  }),
  keepAliveMs: envVar('ALEXANDRIA_CHAT_KEEPALIVE_MS', positiveInt, {
    default: '10000',
    description:
      'Interval of ": keep-alive" comments in a chat stream while the agent works silently, in milliseconds.',
  }),
  generativeConcurrency: envVar('ALEXANDRIA_GENERATIVE_CONCURRENCY', positiveInt, {
    default: '4',
    description: 'Model calls in flight at once for generative_mode answers (across the service).',
  }),
  generativeTimeoutMs: envVar('ALEXANDRIA_GENERATIVE_TIMEOUT_MS', positiveInt, {
    default: '15000',
    description:
      'Deadline of one generative_mode model answer, in milliseconds; past it the answer is extractive.',
  }),
};

/** The chat settings as loaded (`Config['chat']`). */
export type ChatSettings = SectionValues<typeof chatSection>;

/** Which chat model runs: an OpenAI-compatible API, a GGUF model in this process, or none. */
export type ChatProvider = 'none' | 'openai' | 'local';

/**
 * How the chat model is used, resolved once from the chat settings (`resolveChatProfile`): every
 * field is the configured value, else the default of the provider's kind. The composition root reads
 * these fields; it does not branch on the provider.
 */
export interface ChatProfile {
  /** ALEXANDRIA_CHAT_PROVIDER, else `openai` when ALEXANDRIA_CHAT_URL is set, else `none`. */
  provider: ChatProvider;
  /** llama.cpp computes in this process: it takes its share of ALEXANDRIA_CPU_THREADS. */
  runsInProcess: boolean;
  /** Deadline of one model call, in milliseconds (ALEXANDRIA_CHAT_TIMEOUT_MS). */
  callTimeoutMs: number;
  /** Wall-clock limit of one agent run, in milliseconds (ALEXANDRIA_AGENT_TIME_LIMIT_MS). */
  runTimeLimitMs: number;
  /** Most model calls of one agent run (ALEXANDRIA_AGENT_MAX_STEPS). */
  maxSteps: number;
  /** Most tokens of the agent's answer (ALEXANDRIA_AGENT_ANSWER_TOKENS); unset: the per-call limit. */
  maxAnswerTokens: number | undefined;
  /** A step starting this far into a run must answer (ALEXANDRIA_AGENT_ANSWER_AFTER_MS); unset: never. */
  answerAfterMs: number | undefined;
  /** When the answer should begin at the latest (ALEXANDRIA_AGENT_ANSWER_BY_MS); unset: no forecast. */
  answerByMs: number | undefined;
  /** The agent's tools and prompt (ALEXANDRIA_AGENT_TOOL_SET). */
  toolSet: 'full' | 'compact';
  /** Search with the question's keywords before the first model call (ALEXANDRIA_AGENT_SEARCH_FIRST). */
  searchFirst: boolean;
  /**
   * Tokens of conversation history an agent run keeps; unset: the agent's own default. The local
   * model's context also holds the instructions, the tools' results and the answer.
   */
  historyTokens: number | undefined;
  /**
   * One deadline for all generative answers of a search, in milliseconds; unset: each call has only
   * its own. The local model answers one record at a time.
   */
  generativeBudgetMs: number | undefined;
  /**
   * Added to the local model's log-probabilities of yes, no and maybe at the agent's verdict step
   * (`verdictLogPriorsByModelFile`); unset for a model without fitted priors and for remote models,
   * which give no probabilities.
   */
  verdictLogPriors: { yes: number; no: number; maybe: number } | undefined;
}

/** The defaults that differ between a model on this machine's CPU and one behind an API. */
interface ProviderDefaults {
  callTimeoutMs: number;
  runTimeLimitMs: number;
  maxSteps: number;
  maxAnswerTokens: number | undefined;
  answerAfterMs: number | undefined;
  answerByMs: number | undefined;
  toolSet: 'full' | 'compact';
}

/**
 * The local model (docs/decisions/0035-local-chat-model.md): a small model on CPU reads every prompt
 * token at ~100 a second and writes ~10-25 a second, and a step of the 1.5B model on 2 busy cores
 * takes 10-40 s. So: longer deadlines, fewer steps, a short answer, the compact tool set, and an
 * answer begun by a step starting 45 s into the run or one the longest step says would end past
 * 50 s (its answer needs ~30-45 s after the last step).
 */
const localDefaults: ProviderDefaults = {
  callTimeoutMs: 300_000,
  runTimeLimitMs: 600_000,
  maxSteps: 4,
  maxAnswerTokens: 320,
  answerAfterMs: 45_000,
  answerByMs: 50_000,
  toolSet: 'compact',
};

/** An OpenAI-compatible API (and no model at all, whose extractive agent keeps the same budgets). */
const remoteDefaults: ProviderDefaults = {
  callTimeoutMs: 60_000,
  runTimeLimitMs: 120_000,
  maxSteps: 8,
  maxAnswerTokens: undefined,
  answerAfterMs: undefined,
  answerByMs: undefined,
  toolSet: 'full',
};

/**
 * The verdict step's log-priors of a local model, by GGUF file name: how far the model's
 * classification turn leans towards each word, corrected. Fitted once, for the default local
 * model only, on the tuning split of `npm run eval -- verdict-step` (PubMedQA and SciFact pooled)
 * and measured on its reporting split: docs/decisions/0072-verdict-priors.md. Another model's lean
 * differs; it gets none (the most probable word as given).
 */
export const verdictLogPriorsByModelFile: Readonly<
  Record<string, { yes: number; no: number; maybe: number }>
> = {
  [localChatModelFiles['qwen2.5-1.5b']]: { yes: 0, no: 0.9, maybe: -0.3 },
};

/** Resolves the chat profile once from the loaded chat settings (`config.chat`). */
export function resolveChatProfile(chat: ChatSettings): ChatProfile {
  const provider: ChatProvider = chat.provider ?? (chat.url ? 'openai' : 'none');
  const runsInProcess = provider === 'local';
  const defaults = runsInProcess ? localDefaults : remoteDefaults;
  const toolSet = chat.toolSet ?? defaults.toolSet;
  return {
    provider,
    runsInProcess,
    callTimeoutMs: chat.timeoutMs ?? defaults.callTimeoutMs,
    runTimeLimitMs: chat.timeLimitMs ?? defaults.runTimeLimitMs,
    maxSteps: chat.maxSteps ?? defaults.maxSteps,
    maxAnswerTokens: chat.maxAnswerTokens ?? defaults.maxAnswerTokens,
    answerAfterMs: chat.answerAfterMs ?? defaults.answerAfterMs,
    answerByMs: chat.answerByMs ?? defaults.answerByMs,
    toolSet,
    searchFirst: chat.searchFirst ?? toolSet === 'compact',
    historyTokens: runsInProcess ? Math.floor(chat.contextTokens / 4) : undefined,
    generativeBudgetMs: runsInProcess ? chat.generativeTimeoutMs : undefined,
    verdictLogPriors: runsInProcess ? verdictLogPriorsByModelFile[basename(chat.modelPath)] : undefined,
  };
}
