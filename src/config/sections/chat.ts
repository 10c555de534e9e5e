import { z } from 'zod';
import { booleanText, envVar, nonNegativeInt, optionalText, positiveInt, urlText } from '../env-var.js';

/**
 * The research agent behind `POST /api/chat/completions` and the answers of `generative_mode=true`.
 * Without `ALEXANDRIA_CHAT_URL` no model is used: answers are extractive (quoted from the papers).
 */
export const chatSection = {
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
  modelName: envVar('ALEXANDRIA_CHAT_MODEL_NAME', z.string().trim().min(1).max(100), {
    default: 'alexandria-research',
    description:
      "Model name the chat endpoint reports and GET /api/models lists (the request's model field is ignored).",
  }),
  timeoutMs: envVar('ALEXANDRIA_CHAT_TIMEOUT_MS', positiveInt, {
    default: '60000',
    description: 'Deadline of one call to the chat model, in milliseconds.',
  }),
  maxRetries: envVar('ALEXANDRIA_CHAT_MAX_RETRIES', nonNegativeInt, {
    default: '2',
    description: 'Retries of a failed chat-model call before it streams (429, 5xx, connection errors).',
  }),
  maxSteps: envVar('ALEXANDRIA_AGENT_MAX_STEPS', positiveInt, {
    default: '8',
    description: 'Most model calls of one agent run; the last is told to answer without tools.',
  }),
  maxTokens: envVar('ALEXANDRIA_AGENT_MAX_TOKENS', positiveInt, {
    default: '60000',
    description:
      'Token budget of one agent run (prompt + completion, all calls); once spent, the next call must answer.',
  }),
  timeLimitMs: envVar('ALEXANDRIA_AGENT_TIME_LIMIT_MS', positiveInt, {
    default: '120000',
    description:
      'Wall-clock limit of one agent run, in milliseconds; past it the answer is composed from what was retrieved.',
  }),
  toolTimeoutMs: envVar('ALEXANDRIA_AGENT_TOOL_TIMEOUT_MS', positiveInt, {
    default: '30000',
    description: 'Deadline of one agent tool call (search, read, ask a PDF), in milliseconds.',
  }),
  readRemotePdfs: envVar('ALEXANDRIA_AGENT_READ_REMOTE_PDFS', booleanText.optional(), {
    description:
      'Let the research agent fetch and read the open-access PDFs of search results (PDF_URL:). Unset: yes when ALEXANDRIA_SOURCES names a source; without sources (offline) it reads only what is stored here (project PDFs, cached parses) and tries no host. true/false force it.',
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
