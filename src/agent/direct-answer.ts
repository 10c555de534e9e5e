import { type ChatModel, estimateTokens, type TokenUsage } from '../ports/chat-model.js';
import type { AgentEvent, ResearchRequest, RunSummary } from './agent-types.js';
import { CitationFilter } from './citation-filter.js';
import { turnText } from './model-turn.js';
import { smallTalkPrompt } from './prompts.js';
import { type ClientTask, type SmallTalkIntent, titleOf } from './small-talk.js';
import { SourceLedger } from './source-ledger.js';

export interface DirectAnswersOptions {
  /** The chat model; without one the answers are fixed notices and values derived from the text. */
  model?: ChatModel | undefined;
  /** Deadline of the one model call, in milliseconds. */
  timeoutMs: number;
}

/** Most tokens the model may write for a direct answer (a title, a greeting). */
const maxDirectTokens = 200;

/**
 * Answers requests that are not research questions (see `small-talk.ts`) without a literature run:
 * no search, no PDF, no upstream call. With a chat model, one short call without tools: a client
 * task's JSON is checked and, when the model's is unusable, replaced by one derived from the
 * conversation; small talk streams through the citation filter like any answer (an empty ledger,
 * so no link survives). Without a model, or when the call fails: a fixed notice, or the derived JSON.
 */
export class DirectAnswers {
  constructor(private readonly options: DirectAnswersOptions) {}

  async *clientTask(request: ResearchRequest, task: ClientTask): AsyncIterable<AgentEvent> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let steps = 0;
    let written: string | undefined;
    if (this.options.model) {
      steps = 1;
      written = await this.complete([{ role: 'user', content: task.prompt }], request.signal, usage);
    }
    const text = taskText(task, written);
    yield { type: 'content', text };
    yield this.done(request, usage, steps, text, new CitationFilter(new SourceLedger()));
  }

  async *smallTalk(request: ResearchRequest, intent: SmallTalkIntent): AsyncIterable<AgentEvent> {
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const ledger = new SourceLedger();
    const filter = new CitationFilter(ledger);
    let answer = '';
    let steps = 0;
    if (this.options.model) {
      steps = 1;
      const recent = request.messages.filter((message) => message.role !== 'system').slice(-6);
      const written = await this.complete(
        [{ role: 'system', content: smallTalkPrompt }, ...recent],
        request.signal,
        usage,
      );
      if (written?.trim()) answer = filter.push(written.trim()) + filter.end();
    }
    if (!answer.trim())
      answer = filter.push(smallTalkNotice(intent, this.options.model !== undefined)) + filter.end();
    yield { type: 'content', text: answer };
    yield this.done(request, usage, steps, answer, filter);
  }

  /**
   * One model call without tools; its text, or undefined when it fails (the caller then answers
   * without the model). A client abort propagates.
   */
  private async complete(
    messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>,
    clientSignal: AbortSignal,
    usage: TokenUsage,
  ): Promise<string | undefined> {
    const model = this.options.model as ChatModel;
    const signal = AbortSignal.any([clientSignal, AbortSignal.timeout(this.options.timeoutMs)]);
    try {
      return await turnText(model, { messages, maxTokens: maxDirectTokens, signal }, usage);
    } catch {
      clientSignal.throwIfAborted();
      return undefined;
    }
  }

  private done(
    request: ResearchRequest,
    usage: TokenUsage,
    steps: number,
    answer: string,
    filter: CitationFilter,
  ): AgentEvent {
    const summary: RunSummary = {
      mode: 'direct',
      usage:
        steps > 0 && usage.promptTokens + usage.completionTokens > 0
          ? usage
          : {
              promptTokens: estimateTokens(request.messages.map((message) => message.content).join('\n')),
              completionTokens: estimateTokens(answer),
            },
      steps,
      sources: 0,
      citations: filter.report,
      ledger: new SourceLedger(),
    };
    return { type: 'done', summary };
  }
}

/**
 * The answer to a client task: the model's JSON when usable, else the derived one. The voice-mode
 * emoji prompt wants one emoji, not JSON.
 */
function taskText(task: ClientTask, written: string | undefined): string {
  if (task.key === 'emoji') {
    const emoji = written?.trim() ?? '';
    return emoji.length > 0 && emoji.length <= 8 && !/[\p{L}\p{N}]/u.test(emoji) ? emoji : '🙂';
  }
  const answer = written === undefined ? undefined : taskAnswerOf(written, task);
  return JSON.stringify(answer ?? derivedTaskAnswer(task));
}

/**
 * The model's JSON for a client task, re-serialised with only the asked key, or undefined when it
 * has no usable value (no JSON object, wrong type, empty title). Models often wrap the object in a
 * code fence or a sentence: the outermost braces are what is read.
 */
export function taskAnswerOf(written: string, task: ClientTask): Record<string, unknown> | undefined {
  const start = written.indexOf('{');
  const end = written.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(written.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const value = (parsed as Record<string, unknown>)[task.key];
  if (task.list) {
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return undefined;
    return {
      [task.key]: value
        .map((item) => item.trim())
        .filter(Boolean)
        .slice(0, 10),
    };
  }
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (task.key === 'title' && (trimmed.length === 0 || trimmed.length > 120)) return undefined;
  return { [task.key]: trimmed };
}

/**
 * A client task's answer without a model: the title from the conversation's first question, tags
 * "Research", the last question as the search query, and empty values where only a model could
 * add something (follow-up suggestions, autocompletion).
 */
export function derivedTaskAnswer(task: ClientTask): Record<string, unknown> {
  switch (task.key) {
    case 'title':
      return { title: titleOf(task.history) };
    case 'tags':
      return { tags: ['Research'] };
    case 'queries': {
      const last = [...task.history].reverse().find((turn) => turn.role === 'user')?.text;
      return { queries: last ? [last.slice(0, 300)] : [] };
    }
    default:
      return { [task.key]: task.list ? [] : '' };
  }
}

/** What the service says to small talk without a model (or when the model failed). */
export function smallTalkNotice(intent: SmallTalkIntent, withModel: boolean): string {
  const how = withModel
    ? "I'll search the literature and answer with citations."
    : "I'll search the literature and answer with passages quoted from the papers, with citations.";
  switch (intent) {
    case 'hello':
      return `Hello! I'm Alexandria, a research assistant. Ask me a research question, for example "Which antibiotics can Acinetobacter lwoffii evolve resistance to?", and ${how}`;
    case 'thanks':
      return "You're welcome! Ask another research question whenever you like.";
    case 'bye':
      return 'Goodbye! Come back with a research question any time.';
    case 'help':
      return `I'm Alexandria, a research assistant for the scholarly literature. Ask a research question and ${how} I can also search papers you added to your projects.`;
  }
}
