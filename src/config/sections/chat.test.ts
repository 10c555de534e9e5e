import { describe, expect, it } from 'vitest';
import { loadConfig } from '../load-config.js';
import { resolveChatProfile, verdictLogPriorsByModelFile } from './chat.js';

const profileOf = (environment: Record<string, string>) => resolveChatProfile(loadConfig(environment).chat);

describe('chat profile', () => {
  it('gives the local model longer deadlines, fewer steps, a short answer and the compact tools', () => {
    const qwen = '/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf';
    expect(profileOf({ ALEXANDRIA_CHAT_PROVIDER: 'local', ALEXANDRIA_CHAT_MODEL_PATH: qwen })).toEqual({
      provider: 'local',
      runsInProcess: true,
      callTimeoutMs: 300_000,
      runTimeLimitMs: 600_000,
      maxSteps: 4,
      maxAnswerTokens: 320,
      answerAfterMs: 45_000,
      answerByMs: 50_000,
      toolSet: 'compact',
      searchFirst: true,
      // A quarter of the default 8192-token context.
      historyTokens: 2048,
      // ALEXANDRIA_GENERATIVE_TIMEOUT_MS's default, as one deadline for a search's answers.
      generativeBudgetMs: 15_000,
      // The default model's fitted correction of its lean at the verdict step (decision 0072).
      verdictLogPriors: verdictLogPriorsByModelFile['qwen2.5-coder-1.5b-instruct-q4_k_m.gguf'],
    });
    expect(verdictLogPriorsByModelFile['qwen2.5-coder-1.5b-instruct-q4_k_m.gguf']?.yes).toBe(0);
    // Another GGUF's lean is not known: no priors, the most probable word as the model gives it.
    expect(
      profileOf({ ALEXANDRIA_CHAT_PROVIDER: 'local', ALEXANDRIA_CHAT_MODEL_PATH: '/models/other.gguf' })
        .verdictLogPriors,
    ).toBeUndefined();
  });

  it('gives an OpenAI-compatible API the remote budgets, and picks it from ALEXANDRIA_CHAT_URL', () => {
    const remote = {
      provider: 'openai',
      runsInProcess: false,
      callTimeoutMs: 60_000,
      runTimeLimitMs: 120_000,
      maxSteps: 8,
      maxAnswerTokens: undefined,
      answerAfterMs: undefined,
      answerByMs: undefined,
      toolSet: 'full',
      searchFirst: false,
      historyTokens: undefined,
      generativeBudgetMs: undefined,
      verdictLogPriors: undefined,
    };
    expect(profileOf({ ALEXANDRIA_CHAT_URL: 'http://localhost:11434/v1' })).toEqual(remote);
    expect(profileOf({ ALEXANDRIA_CHAT_PROVIDER: 'openai' })).toEqual(remote);
    // No model at all: the extractive agent keeps the remote budgets.
    expect(profileOf({})).toEqual({ ...remote, provider: 'none' });
  });

  it('lets every configured value win over the provider default', () => {
    const profile = profileOf({
      ALEXANDRIA_CHAT_PROVIDER: 'local',
      ALEXANDRIA_CHAT_CONTEXT_TOKENS: '4096',
      ALEXANDRIA_CHAT_TIMEOUT_MS: '1000',
      ALEXANDRIA_AGENT_TIME_LIMIT_MS: '2000',
      ALEXANDRIA_AGENT_MAX_STEPS: '6',
      ALEXANDRIA_AGENT_ANSWER_TOKENS: '500',
      ALEXANDRIA_AGENT_ANSWER_AFTER_MS: '3000',
      ALEXANDRIA_AGENT_ANSWER_BY_MS: '4000',
      ALEXANDRIA_AGENT_TOOL_SET: 'full',
      ALEXANDRIA_GENERATIVE_TIMEOUT_MS: '5000',
    });
    expect(profile).toMatchObject({
      callTimeoutMs: 1000,
      runTimeLimitMs: 2000,
      maxSteps: 6,
      maxAnswerTokens: 500,
      answerAfterMs: 3000,
      answerByMs: 4000,
      toolSet: 'full',
      // Follows the tool set unless set itself.
      searchFirst: false,
      historyTokens: 1024,
      generativeBudgetMs: 5000,
    });
    expect(
      profileOf({ ALEXANDRIA_CHAT_URL: 'http://localhost:1/v1', ALEXANDRIA_AGENT_TOOL_SET: 'compact' }),
    ).toMatchObject({ toolSet: 'compact', searchFirst: true });
    expect(
      profileOf({ ALEXANDRIA_CHAT_PROVIDER: 'local', ALEXANDRIA_AGENT_SEARCH_FIRST: 'false' }).searchFirst,
    ).toBe(false);
  });
});
