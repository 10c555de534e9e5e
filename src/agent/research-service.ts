import type { ChatMessage } from '../domain/chat.js';
import { invalid } from '../domain/errors.js';
import type { ChatModel } from '../ports/chat-model.js';
import type { EmbeddingModel } from '../ports/embedding-model.js';
import type { ToolSet } from './agent-tools.js';
import {
  type AgentBudgets,
  type AgentEvent,
  questionOf,
  type ResearchAgent,
  type ResearchRequest,
  type ResearchTools,
} from './agent-types.js';
import { DirectAnswers } from './direct-answer.js';
import { ExtractiveAgent } from './extractive-agent.js';
import { classifyRequest } from './small-talk.js';
import { ToolAgent } from './tool-agent.js';
import type { VerdictLogPriors } from './verdict.js';

export interface ResearchServiceOptions {
  /** Our model name, echoed in every completion (`alexandria-research`). */
  modelName: string;
  /** The chat model; without one the extractive pipeline answers. */
  model?: ChatModel | undefined;
  tools: ResearchTools;
  budgets: AgentBudgets;
  /** Link target for records known only by a `PROJ:` reference. */
  documentUrl?: (pdfRef: string) => string;
  /**
   * Whether the agents fetch open-access PDFs by url (default true). False (offline installations):
   * they read only PDFs stored in projects and cached parses, and try no host.
   */
  readRemotePdfs?: boolean;
  /** The tool agent's tools and prompt: `compact` for a small local model (default `full`). */
  toolSet?: ToolSet;
  /** Search before the tool agent's first model call (default false). */
  searchFirst?: boolean;
  /** Tokens the conversation may take of the model's context (the tool agent; default 24,000). */
  historyTokens?: number;
  /** The sentence encoder the tool agent's citation support check uses (decision 0063). */
  embeddings?: EmbeddingModel;
  /** The tool agent's correction of the model's lean at the verdict step (decision 0072). */
  verdictLogPriors?: VerdictLogPriors;
}

/** The tools with a full-text reader that reads only what is here (`localOnly`). */
function localOnlyTools(tools: ResearchTools): ResearchTools {
  const reader = tools.fullText;
  if (!reader) return tools;
  return {
    ...tools,
    fullText: {
      readChunk: (tenantId, pdfRef, chunk, options = {}) =>
        reader.readChunk(tenantId, pdfRef, chunk, { ...options, localOnly: true }),
      ask: (tenantId, pdfRef, question, options = {}) =>
        reader.ask(tenantId, pdfRef, question, { ...options, localOnly: true }),
      // Locating never fetches.
      ...(reader.locate ? { locate: reader.locate.bind(reader) } : {}),
    },
  };
}

/**
 * Answers research questions for the chat endpoint: the tool-calling agent when a chat model is
 * configured (falling back to the extractive pipeline when the model fails before writing), the
 * extractive pipeline otherwise.
 */
export class ResearchService {
  readonly modelName: string;
  readonly mode: 'tools' | 'extractive';
  private readonly agent: ResearchAgent;
  private readonly direct: DirectAnswers;

  constructor(options: ResearchServiceOptions) {
    this.modelName = options.modelName;
    const documentUrl = options.documentUrl ? { documentUrl: options.documentUrl } : {};
    this.direct = new DirectAnswers({ model: options.model, timeoutMs: options.budgets.toolTimeoutMs });
    const tools = options.readRemotePdfs === false ? localOnlyTools(options.tools) : options.tools;
    const extractive = new ExtractiveAgent(tools, {
      budgets: options.budgets,
      ...documentUrl,
      ...(options.readRemotePdfs === undefined ? {} : { readRemotePdfs: options.readRemotePdfs }),
      ...(options.embeddings ? { embeddings: options.embeddings } : {}),
    });
    this.mode = options.model ? 'tools' : 'extractive';
    this.agent = options.model
      ? new ToolAgent(options.model, tools, {
          budgets: options.budgets,
          fallback: extractive,
          ...documentUrl,
          ...(options.toolSet ? { toolSet: options.toolSet } : {}),
          ...(options.historyTokens ? { historyTokens: options.historyTokens } : {}),
          ...(options.searchFirst ? { searchFirst: true } : {}),
          ...(options.embeddings ? { embeddings: options.embeddings } : {}),
          ...(options.verdictLogPriors ? { verdictLogPriors: options.verdictLogPriors } : {}),
        })
      : extractive;
  }

  /** Throws a 400 naming `messages` when the conversation holds no question; call before streaming. */
  checkRequest(messages: ChatMessage[]): void {
    if (questionOf(messages).length === 0) {
      throw invalid('messages', 'messages must contain a user message with the question (non-empty content)');
    }
  }

  /**
   * Answers the conversation: a research question gets the agent's run; small talk and a chat
   * client's task prompt (a title, tags) a short direct answer without a literature run.
   */
  run(request: ResearchRequest): AsyncIterable<AgentEvent> {
    this.checkRequest(request.messages);
    const kind = classifyRequest(request.messages);
    if (kind.kind === 'client_task') return this.direct.clientTask(request, kind.task);
    if (kind.kind === 'small_talk') return this.direct.smallTalk(request, kind.intent);
    return this.agent.run(request);
  }
}
