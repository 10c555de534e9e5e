import { basename } from 'node:path';
import type { Llama, LlamaGrammar, LlamaModel, TokenBias } from 'node-llama-cpp';
import { UpstreamError } from '../../domain/errors.js';
import type {
  ChatFinishReason,
  ChatModel,
  ChatStreamEvent,
  ChatToolDefinition,
  ChatTurnRequest,
} from '../../ports/chat-model.js';
import { type CallSignals, stoppedCallError } from './call-errors.js';
import { Channel } from './event-channel.js';
import { actionSchema, parseAction, toHistory, writeAnswerNow } from './llama-cpp-actions.js';
import { choiceGrammarText, choiceProbabilities } from './llama-cpp-choices.js';
import { type LlamaCppLoadOptions, type Loaded, loadModel } from './llama-cpp-model-loader.js';

/** The local chat model's settings (`loadModel` reads the first four). */
export interface LlamaCppChatModelOptions extends LlamaCppLoadOptions {
  /** Default per-call deadline in milliseconds (waiting for the model included). */
  timeoutMs: number;
  /** Sampling temperature when a request gives none. */
  temperature?: number;
}

/** What an action step may generate at most: one JSON object naming a tool and its arguments. */
const actionTokenLimit = 400;
const source = 'chat-model';

/**
 * `ChatModel` on a GGUF model run in-process by llama.cpp (node-llama-cpp, CPU prebuilt binary).
 * Tool calling is constrained decoding, not the model's native function calling: when a turn offers
 * tools, the model writes one JSON action under a JSON-schema grammar (`{"action": <tool>, …}` or
 * `{"action": "answer"}`), mapped to one tool call; "answer" is followed, in the same turn, by the
 * answer streamed as free text. Small models follow that reliably where native calls fail
 * (docs/decisions/0035-local-chat-model.md).
 *
 * One model, one context, one sequence: turns run one at a time (a queue), and a turn that extends
 * the previous one (the agent's next step) re-evaluates only the new tokens. llama.cpp computes on
 * its own native threads, so the event loop stays free; the model loads on first use or `load()`.
 */
export class LlamaCppChatModel implements ChatModel {
  readonly id: string;
  private loading: Promise<Loaded> | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly grammars = new Map<string, Promise<LlamaGrammar>>();
  private openingBiases: Promise<{ noBrace: TokenBias; none: TokenBias }> | undefined;
  private closed = false;
  /** The tools of the last turn that offered some: the protocol of a following turn without tools. */
  private lastTools: ChatToolDefinition[] | undefined;

  constructor(private readonly options: LlamaCppChatModelOptions) {
    this.id = basename(options.modelPath).replace(/\.gguf$/i, '');
  }

  /** Loads the model (memory-mapped) and creates its context; later calls share the result. */
  load(): Promise<void> {
    return this.loaded().then(() => undefined);
  }

  /**
   * How many tokens each sequence holds (diagnostics and tests): the conversation's, and the one
   * isolated turns run on. Zero for both before the model is loaded.
   */
  async heldTokens(): Promise<{ conversation: number; isolated: number }> {
    if (!this.loading) return { conversation: 0, isolated: 0 };
    const { chat, aside } = await this.loading;
    return { conversation: chat.sequence.nextTokenIndex, isolated: aside.sequence.nextTokenIndex };
  }

  async close(): Promise<void> {
    this.closed = true;
    const loading = this.loading;
    this.loading = undefined;
    if (!loading) return;
    await this.tail.catch(() => undefined);
    const loaded = await loading.catch(() => undefined);
    await loaded?.llama.dispose();
  }

  async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const consumer = new AbortController();
    const signals = [deadline, consumer.signal, ...(request.signal ? [request.signal] : [])];
    const signal = AbortSignal.any(signals);
    const channel = new Channel<ChatStreamEvent>();
    const turn = this.exclusive(signal, () => this.turn(request, signal, channel)).then(
      () => channel.end(),
      (error) => channel.fail(mapError(error, { request: request.signal, deadline, timeoutMs })),
    );
    try {
      yield* channel;
    } finally {
      // The caller stopped reading (or the turn ended): stop generating, release the queue.
      consumer.abort(new Error('The chat stream was closed by its reader'));
      await turn;
    }
  }

  private loaded(): Promise<Loaded> {
    if (this.closed) return Promise.reject(new Error('The local chat model is closed'));
    this.loading ??= loadModel(this.options).catch((error) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  /** Runs `work` after the turns before it; a turn whose signal aborts while it waits never starts. */
  private exclusive(signal: AbortSignal, work: () => Promise<void>): Promise<void> {
    const previous = this.tail;
    const run = new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      previous
        .catch(() => undefined)
        .then(() => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) return onAbort();
          work().then(resolve, reject);
        });
    });
    // The next turn waits for this one to finish, not merely to be abandoned while it waits.
    this.tail = previous.catch(() => undefined).then(() => run.catch(() => undefined));
    return run;
  }

  private async turn(request: ChatTurnRequest, signal: AbortSignal, channel: Channel<ChatStreamEvent>) {
    const loaded = await this.loaded();
    const { llama, model, context } = loaded;
    // An isolated turn (a side question) runs on the second sequence: the conversation's sequence
    // keeps what it has evaluated, and the side turn's own stable prefix stays in the other.
    const chat = request.isolated ? loaded.aside : loaded.chat;
    signal.throwIfAborted();
    const tools = request.tools?.length ? request.tools : undefined;
    // A turn without tools after tool steps (the agent's last, "answer now") keeps the protocol the
    // steps were taken under, so the model reads its JSON actions as such and the evaluated prefix
    // is reused, and answers as after an "answer" action (a small model otherwise imitates the JSON).
    const calledBefore = request.messages.some(
      (message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0,
    );
    const protocolTools = tools ?? (calledBefore ? this.lastTools : undefined);
    // After tool steps, a turn without tools answers: the model's answer action follows the last
    // tool result, and what the caller added since (a budget note, a verdict exchange) after it, so
    // each such turn extends the one before it and the sequence re-evaluates only the new text.
    const history = toHistory(request.messages, protocolTools, { answerAfterCalls: !tools && calledBefore });
    if (tools) this.lastTools = tools;
    const temperature = request.temperature ?? this.options.temperature ?? 0.2;
    const maxTokens = Math.min(request.maxTokens ?? context.contextSize, context.contextSize);
    let completionTokens = 0;
    const countTokens = (tokens: readonly unknown[]) => {
      completionTokens += tokens.length;
    };
    const finish = (reason: ChatFinishReason, choiceProbabilities?: Record<string, number>) => {
      channel.push({
        type: 'finish',
        reason,
        usage: {
          promptTokens: Math.max(0, chat.sequence.nextTokenIndex - completionTokens),
          completionTokens,
        },
        usageEstimated: false,
        ...(choiceProbabilities ? { choiceProbabilities } : {}),
      });
    };

    if (tools) {
      const grammar = await this.grammarFor(llama, tools);
      const step = await chat.generateResponse(history, {
        grammar,
        maxTokens: Math.min(actionTokenLimit, maxTokens),
        temperature,
        signal,
        onToken: countTokens,
      });
      signal.throwIfAborted();
      const action = parseAction(step.response, tools);
      if (!action) {
        // Cut by the token limit before the object closed: no call, and no answer either.
        finish('length');
        return;
      }
      if (action.kind === 'call') {
        channel.push({ type: 'tool_call', call: action.call });
        finish('tool_calls');
        return;
      }
      if (request.answerSeparately) {
        // The caller asks for the answer in a turn of its own (after a step of its own).
        finish('stop');
        return;
      }
      history.splice(
        -1,
        1,
        { type: 'model', response: [step.response] },
        { type: 'user', text: writeAnswerNow(request.messages) },
      );
      history.push({ type: 'model', response: [] });
    } else if (request.choices?.length) {
      // The choices' probabilities as the model's next token, where their first tokens differ: the
      // most probable is the reply, and the caller gets all of them (one evaluation, no sampling).
      const probabilities = await choiceProbabilities(model, chat, history, request.choices);
      signal.throwIfAborted();
      if (probabilities) {
        const best = Object.entries(probabilities).reduce((a, b) => (b[1] > a[1] ? b : a));
        channel.push({ type: 'text', text: best[0] });
        completionTokens = 1;
        finish('stop', probabilities);
        return;
      }
      // Else one of the choices under a grammar: the last message (the caller's question) is the prompt.
      const step = await chat.generateResponse(history, {
        grammar: await this.choiceGrammar(llama, request.choices),
        maxTokens: Math.min(actionTokenLimit, maxTokens),
        temperature,
        signal,
        onToken: countTokens,
      });
      signal.throwIfAborted();
      if (step.response) channel.push({ type: 'text', text: step.response });
      finish(step.metadata.stopReason === 'maxTokens' ? 'length' : 'stop');
      return;
    } else if (calledBefore) {
      const last = history.at(-2);
      const instruction = writeAnswerNow(request.messages);
      // The answer instruction joins the caller's last note, or follows a reply the model gave.
      if (last?.type === 'user') last.text = `${last.text}\n\n${instruction}`;
      else history.splice(-1, 0, { type: 'user', text: instruction });
    }

    // An answer under the action protocol never opens with "{": the 1.5B model otherwise wrote
    // `{"action":"answer"}` again as the whole answer after a note (seen on the web page, a
    // follow-up answered from abstracts). Only the first token is held; braces later are free.
    const opening = protocolTools ? await this.openingBias(model) : undefined;
    let started = false;
    const answer = await chat.generateResponse(history, {
      // The turn's limit covers the action written before the answer too.
      maxTokens: Math.max(1, maxTokens - completionTokens),
      temperature,
      signal,
      ...(opening ? { tokenBias: () => (started ? opening.none : opening.noBrace) } : {}),
      onToken: (tokens) => {
        if (tokens.length > 0) started = true;
        countTokens(tokens);
      },
      onTextChunk: (text) => {
        if (text) channel.push({ type: 'text', text });
      },
    });
    signal.throwIfAborted();
    finish(answer.metadata.stopReason === 'maxTokens' ? 'length' : 'stop');
  }

  /** Token biases of an answer's first token: no token that opens a JSON object; and none. */
  private openingBias(model: LlamaModel): Promise<{ noBrace: TokenBias; none: TokenBias }> {
    this.openingBiases ??= import('node-llama-cpp').then(({ TokenBias }) => {
      const noBrace = new TokenBias(model.tokenizer);
      for (const text of ['{', '{"', ' {', ' {"', '{\n', '{\n"', '```json', '```'])
        for (const token of model.tokenize(text, false).slice(0, 1)) noBrace.set(token, 'never');
      return { noBrace, none: new TokenBias(model.tokenizer) };
    });
    return this.openingBiases;
  }

  /** The grammar of a reply that is exactly one of `choices` (created once per set of choices). */
  private choiceGrammar(llama: Llama, choices: string[]): Promise<LlamaGrammar> {
    const key = `choices ${JSON.stringify(choices)}`;
    let grammar = this.grammars.get(key);
    if (!grammar) {
      grammar = llama.createGrammar({ grammar: choiceGrammarText(choices) });
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }

  /** The JSON-schema grammar of one step's actions (created once per set of tools). */
  private grammarFor(llama: Llama, tools: ChatToolDefinition[]): Promise<LlamaGrammar> {
    const schema = actionSchema(tools);
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      // The schema is built to the grammar's subset (actionSchema); its static type cannot say so.
      grammar = llama.createGrammarForJsonSchema(schema as never);
      grammar.catch(() => this.grammars.delete(key));
      this.grammars.set(key, grammar);
    }
    return grammar;
  }
}

/** Model failures → AppError; an abort by the caller stays an abort (its reason is rethrown). */
function mapError(error: unknown, context: CallSignals): unknown {
  const stopped = stoppedCallError(error, context);
  if (stopped !== undefined) return stopped;
  return new UpstreamError(
    source,
    `The local chat model failed: ${(error as Error)?.message ?? String(error)}`,
    { cause: error, retryable: false },
  );
}
