import type { ResearchTools } from '../agent/agent-types.js';
import { GenerativeAnswers } from '../agent/generative-answers.js';
import { ResearchService } from '../agent/research-service.js';
import type { Config } from '../config/load-config.js';
import { publicUrlOf } from '../config/public-url.js';
import type { ChatProfile } from '../config/sections/chat.js';
import type { Logger } from '../platform/logger.js';
import type { ChatModel } from '../ports/chat-model.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import { AnalysisService } from '../services/analysis-service.js';
import type { HeavyWork } from '../services/heavy-work.js';

/**
 * What the chat model answers, on the chat model when one is configured and extractive otherwise:
 * the research agent (chat endpoint), generative-mode answers and comprehensive analyses. Their
 * limits are the chat profile's (resolved once in config/sections/chat.ts); `tools` are the services
 * the agent calls.
 */
export function createAnswering(
  config: Config,
  profile: ChatProfile,
  dependencies: {
    logger: Logger;
    model: ChatModel | undefined;
    /** The sentence encoder, for the agent's check that a cited passage supports its sentence. */
    embeddings?: EmbeddingModel;
    heavy: HeavyWork;
    tools: ResearchTools & Required<Pick<ResearchTools, 'projects' | 'fullText'>>;
  },
) {
  const { chat } = config;
  const { logger, model, tools } = dependencies;
  const fullTextUrl = (pdfRef: string) =>
    `${publicUrlOf(config)}/api/fulltext?pdf_id=${encodeURIComponent(pdfRef)}`;
  return {
    research: new ResearchService({
      modelName: chat.modelName,
      model,
      tools,
      documentUrl: fullTextUrl,
      // Offline (no upstream source) the agent reads only what is here (docs/decisions/0030-chat-details.md).
      readRemotePdfs: chat.readRemotePdfs ?? config.sources.enabled.length > 0,
      toolSet: profile.toolSet,
      searchFirst: profile.searchFirst,
      historyTokens: profile.historyTokens,
      ...(dependencies.embeddings ? { embeddings: dependencies.embeddings } : {}),
      ...(profile.verdictLogPriors ? { verdictLogPriors: profile.verdictLogPriors } : {}),
      budgets: {
        maxSteps: profile.maxSteps,
        maxTokens: chat.maxTokens,
        timeLimitMs: profile.runTimeLimitMs,
        answerAfterMs: profile.answerAfterMs,
        answerByMs: profile.answerByMs,
        toolTimeoutMs: chat.toolTimeoutMs,
        maxToolCallsPerStep: 4,
        maxTokensPerCall: chat.maxTokensPerCall,
        maxAnswerTokens: profile.maxAnswerTokens,
      },
    }),
    answers: new GenerativeAnswers({
      model,
      concurrency: chat.generativeConcurrency,
      timeoutMs: chat.generativeTimeoutMs,
      budgetMs: profile.generativeBudgetMs,
      documentUrl: fullTextUrl,
      onFallback: (error) => logger.warn({ err: error }, 'generative answer fell back to extractive'),
    }),
    analysis: new AnalysisService({
      projects: tools.projects,
      fullText: tools.fullText,
      chunkUrl: (pdfRef, chunk) => `${fullTextUrl(pdfRef)}&chunk=${chunk}`,
      model,
      modelTimeoutMs: profile.callTimeoutMs,
      budget: dependencies.heavy,
    }),
  };
}
