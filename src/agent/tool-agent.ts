import { isAppError } from '../domain/errors.js';
import type { ChatModel, ChatModelMessage, ChatToolCall, TokenUsage } from '../ports/chat-model.js';
import { PromptFence } from '../text/fence.js';
import { createAgentTools, prepareToolCall } from './agent-tools.js';
import type {
  AgentBudgets,
  AgentEvent,
  ResearchAgent,
  ResearchRequest,
  ResearchTools,
  RunSummary,
} from './agent-types.js';
import { questionOf } from './agent-types.js';
import { CitationFilter } from './citation-filter.js';
import { anchorSentences, referencesSection, selectSentences, sentenceLine } from './compose.js';
import { answerNowPrompt, researchSystemPrompt } from './prompts.js';
import { ReferencesGuard } from './references-guard.js';
import { SourceLedger } from './source-ledger.js';

export interface ToolAgentOptions {
  budgets: AgentBudgets;
  documentUrl?: (pdfRef: string) => string;
  /** Runs when the model fails before writing anything (the extractive pipeline). */
  fallback?: ResearchAgent;
  /** Clock for "today" in the prompt (tests pin it). */
  today?: () => string;
}

/**
 * The research agent with a chat model: it plans with tool calls (search, read, ask, add), reads the
 * fenced results, and writes the answer, which streams through the references guard and the citation
 * filter. Budgets: at most `maxSteps` model calls (the last one without tools, told to answer), a
 * token total after which the next call must answer, and a wall-clock limit after which the answer
 * is composed extractively from what was retrieved. See docs/agent.md.
 */
export class ToolAgent implements ResearchAgent {
  constructor(
    private readonly model: ChatModel,
    private readonly tools: ResearchTools,
    private readonly options: ToolAgentOptions,
  ) {}

  async *run(request: ResearchRequest): AsyncIterable<AgentEvent> {
    const { budgets } = this.options;
    const deadline = AbortSignal.timeout(budgets.timeLimitMs);
    const signal = AbortSignal.any([request.signal, deadline]);
    const question = questionOf(request.messages);
    const ledger = new SourceLedger(this.options.documentUrl);
    const fence = new PromptFence();
    const guard = new ReferencesGuard();
    const filter = new CitationFilter(ledger);
    const tools = createAgentTools(this.tools);
    const definitions = [...tools.values()].map((entry) => entry.tool.definition);
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const today = this.options.today?.() ?? new Date().toISOString().slice(0, 10);
    const messages: ChatModelMessage[] = [
      { role: 'system', content: researchSystemPrompt({ fence, maxSteps: budgets.maxSteps - 1, today }) },
      ...request.messages.map((message) => ({ role: message.role, content: message.content })),
    ];
    let written = '';
    let steps = 0;
    let stoppedBy: RunSummary['stoppedBy'];
    let failure: string | undefined;
    const write = (text: string): AgentEvent | undefined => {
      const checked = filter.push(guard.push(text));
      written += checked;
      return checked ? { type: 'content', text: checked } : undefined;
    };

    try {
      for (;;) {
        steps += 1;
        const spent = usage.promptTokens + usage.completionTokens;
        const mustAnswer =
          steps >= budgets.maxSteps || spent >= budgets.maxTokens || definitions.length === 0;
        if (mustAnswer && definitions.length > 0) {
          stoppedBy ??= steps >= budgets.maxSteps ? 'steps' : 'tokens';
          messages.push({ role: 'system', content: answerNowPrompt });
        }
        let text = '';
        const calls: ChatToolCall[] = [];
        for await (const event of this.model.stream({
          messages,
          ...(mustAnswer ? {} : { tools: definitions }),
          maxTokens: budgets.maxTokensPerCall,
          signal,
        })) {
          if (event.type === 'text') {
            text += event.text;
            const out = write(event.text);
            if (out) yield out;
          } else if (event.type === 'tool_call') {
            calls.push(event.call);
          } else {
            usage.promptTokens += event.usage.promptTokens;
            usage.completionTokens += event.usage.completionTokens;
          }
        }
        if (calls.length === 0 || mustAnswer) break;
        messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
        if (text.trim().length > 0) {
          // Text before tool calls is a preamble; what the model writes next starts a new paragraph.
          const out = write('\n\n');
          if (out) yield out;
        }
        for (const [index, call] of calls.entries()) {
          if (index >= budgets.maxToolCallsPerStep) {
            messages.push({
              role: 'tool',
              toolCallId: call.id,
              content: 'Skipped: too many tool calls in one step.',
            });
            continue;
          }
          const prepared = prepareToolCall(tools, call);
          yield { type: 'progress', text: `${prepared.progress}\n` };
          const content = await prepared.execute({
            tenantId: request.tenantId,
            signal,
            ledger,
            fence,
            timeoutMs: budgets.toolTimeoutMs,
          });
          messages.push({ role: 'tool', toolCallId: call.id, content });
        }
      }
    } catch (error) {
      request.signal.throwIfAborted();
      if (deadline.aborted) {
        stoppedBy = 'time';
      } else if (written.length === 0 && this.options.fallback) {
        yield* this.fallBack(request, error, steps, usage);
        return;
      } else {
        failure = isAppError(error) ? error.message : String(error);
      }
    }

    if (stoppedBy === 'time' || written.trim().length === 0) {
      // No usable answer from the model: compose one from the retrieved text, extractively.
      const selected = await anchorSentences(
        this.tools.fullText,
        request.tenantId,
        selectSentences(question, ledger.evidence, { max: 6, perSource: 2 }),
      );
      const note =
        stoppedBy === 'time'
          ? 'The time budget ran out; these are the most relevant retrieved passages, quoted verbatim.'
          : 'The model gave no answer; these are the most relevant retrieved passages, quoted verbatim.';
      const body =
        selected.length > 0
          ? `\n\n${note}\n\n${selected.map(sentenceLine).join('')}`
          : `\n\n${note.split(';')[0]}; nothing relevant was retrieved.\n`;
      const out = write(body);
      if (out) yield out;
    }
    if (failure) {
      const out = write(
        `\n\n*(The answer is incomplete: the chat model failed: ${failure.replace(/[*_[\]]/g, '')})*\n`,
      );
      if (out) yield out;
    }
    const rest = filter.push(guard.end()) + filter.end();
    if (rest) yield { type: 'content', text: rest };
    const references = referencesSection(filter.report.cited);
    if (references) yield { type: 'content', text: `\n${references}` };
    yield {
      type: 'done',
      summary: {
        mode: 'tools',
        usage,
        steps,
        ...(stoppedBy ? { stoppedBy } : {}),
        sources: ledger.size,
        citations: filter.report,
        ledger,
      },
    };
  }

  private async *fallBack(
    request: ResearchRequest,
    error: unknown,
    steps: number,
    usage: TokenUsage,
  ): AsyncIterable<AgentEvent> {
    const reason = isAppError(error) ? error.message : String(error);
    yield { type: 'progress', text: `The chat model is unavailable (${reason}); answering extractively.\n` };
    for await (const event of (this.options.fallback as ResearchAgent).run(request)) {
      if (event.type !== 'done') {
        yield event;
        continue;
      }
      yield {
        type: 'done',
        summary: {
          ...event.summary,
          steps,
          usage: {
            promptTokens: usage.promptTokens + event.summary.usage.promptTokens,
            completionTokens: usage.completionTokens + event.summary.usage.completionTokens,
          },
          fallback: reason,
        },
      };
    }
  }
}
