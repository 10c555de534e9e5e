import type { ChatMessage } from '../domain/chat.js';
import { invalid } from '../domain/errors.js';
import type { ChatModel } from '../ports/chat-model.js';
import {
  type AgentBudgets,
  type AgentEvent,
  questionOf,
  type ResearchAgent,
  type ResearchRequest,
  type ResearchTools,
} from './agent-types.js';
import { ExtractiveAgent } from './extractive-agent.js';
import { ToolAgent } from './tool-agent.js';

export interface ResearchServiceOptions {
  /** Our model name, echoed in every completion (`alexandria-research`). */
  modelName: string;
  /** The chat model; without one the extractive pipeline answers. */
  model?: ChatModel | undefined;
  tools: ResearchTools;
  budgets: AgentBudgets;
  /** Link target for records known only by a `PROJ:` reference. */
  documentUrl?: (pdfRef: string) => string;
  /** Whether the extractive pipeline fetches open-access PDFs by url (default true). */
  readRemotePdfs?: boolean;
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

  constructor(options: ResearchServiceOptions) {
    this.modelName = options.modelName;
    const documentUrl = options.documentUrl ? { documentUrl: options.documentUrl } : {};
    const extractive = new ExtractiveAgent(options.tools, {
      budgets: options.budgets,
      ...documentUrl,
      ...(options.readRemotePdfs === undefined ? {} : { readRemotePdfs: options.readRemotePdfs }),
    });
    this.mode = options.model ? 'tools' : 'extractive';
    this.agent = options.model
      ? new ToolAgent(options.model, options.tools, {
          budgets: options.budgets,
          fallback: extractive,
          ...documentUrl,
        })
      : extractive;
  }

  /** Throws a 400 naming `messages` when the conversation holds no question; call before streaming. */
  checkRequest(messages: ChatMessage[]): void {
    if (questionOf(messages).length === 0) {
      throw invalid('messages', 'messages must contain a user message with the question (non-empty content)');
    }
  }

  run(request: ResearchRequest): AsyncIterable<AgentEvent> {
    this.checkRequest(request.messages);
    return this.agent.run(request);
  }
}
