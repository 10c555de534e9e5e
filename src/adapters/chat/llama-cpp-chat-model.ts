import { basename } from 'node:path';
import type {
  ChatHistoryItem,
  Llama,
  LlamaChat,
  LlamaContext,
  LlamaGrammar,
  LlamaModel,
  TokenBias,
} from 'node-llama-cpp';
import { UpstreamError } from '../../domain/errors.js';
import type {
  ChatFinishReason,
  ChatModel,
  ChatModelMessage,
  ChatStreamEvent,
  ChatToolCall,
  ChatToolDefinition,
  ChatTurnRequest,
} from '../../ports/chat-model.js';
import { type CallSignals, stoppedCallError } from './call-errors.js';

export interface LlamaCppChatModelOptions {
  /** A GGUF file (any instruction-tuned model with a chat template). */
  modelPath: string;
  /** llama.cpp compute threads (the chat share of ALEXANDRIA_CPU_THREADS). */
  threads: number;
  /** Context window in tokens; capped at the model's own. */
  contextTokens: number;
  /** Default per-call deadline in milliseconds (waiting for the model included). */
  timeoutMs: number;
  /** Sampling temperature when a request gives none. */
  temperature?: number;
  /** llama.cpp's warnings and errors. */
  onLog?: (level: 'warn' | 'error', message: string) => void;
}

/** What an action step may generate at most: one JSON object naming a tool and its arguments. */
const actionTokenLimit = 400;
const source = 'chat-model';
/**
 * Models smaller than this compute with one thread: their matrices are so small that llama.cpp's
 * threads spend more time waiting for each other than computing (SmolLM2-135M generated 13× slower
 * with 2 threads than with 1 on a busy 2-core machine; docs/decisions/0035-local-chat-model.md).
 */
const smallModelBytes = 300 * 1024 * 1024;

/** The protocol of a step with tools, appended to the system prompt (its text is stable across steps). */
function actionProtocol(tools: ChatToolDefinition[]): string {
  const lines = tools.map((tool) => {
    const properties = propertiesOf(tool.parameters);
    const required = new Set(requiredOf(tool.parameters));
    const args = Object.entries(properties).map(([name, schema]) => {
      const description = typeof schema.description === 'string' ? `: ${schema.description}` : '';
      return `    - ${name} (${typeLabel(schema)}${required.has(name) ? '' : ', or null'})${description}`;
    });
    return [`- "${tool.name}": ${tool.description}`, ...args].join('\n');
  });
  return `## Actions
You work in steps. At each step reply with exactly one JSON object that names an action and its arguments, like {"action": "<name>", "<argument>": <value>, …}. Arguments you do not need are null. The action's result comes back in the next message.
${lines.join('\n')}
- "answer": you have what you need, or more steps will not help; after it you write the answer in plain text.`;
}

/** The action that ends the steps, as the model writes it. */
const answerAction = '{"action": "answer"}';

/**
 * The instruction after an "answer" action: the text that follows is the answer. It repeats the
 * user's question: after a few steps a small model otherwise answers the last question it asked a
 * tool ("What is the purpose of the study?") instead (measured with Qwen2.5-1.5B on PubMedQA).
 */
function writeAnswerNow(messages: ChatModelMessage[]): string {
  const question = [...messages]
    .reverse()
    .find((message) => message.role === 'user')
    ?.content.trim();
  const asked = question ? ` The user's question: "${question.slice(0, 1500)}"` : '';
  return `Now write your answer to the user's question in plain markdown text, not JSON, following any format it asks for: use only the results above, and cite them exactly as the instructions say.${asked}`;
}

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

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  chat: LlamaChat;
  /** A second sequence for `isolated` turns, so the conversation's evaluated prefix stays in `chat`. */
  aside: LlamaChat;
}

async function loadModel(options: LlamaCppChatModelOptions): Promise<Loaded> {
  // Imported here so that a service without the local provider never loads the native binding.
  const { getLlama, LlamaChat, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({
    // The CPU prebuilt binary only (the GPU ones are not installed); never build or download.
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    progressLogs: false,
    maxThreads: options.threads,
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const text = message.trim();
      if (!text) return;
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) options.onLog?.('error', text);
      else if (level === LlamaLogLevel.warn) options.onLog?.('warn', text);
    },
  });
  try {
    const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    const trained = model.trainContextSize;
    const threads = model.size < smallModelBytes ? 1 : options.threads;
    const context = await model.createContext({
      contextSize: Math.min(options.contextTokens, trained > 0 ? trained : options.contextTokens),
      sequences: 2,
      threads: { ideal: threads, min: threads },
    });
    const chat = new LlamaChat({ contextSequence: context.getSequence() });
    const aside = new LlamaChat({ contextSequence: context.getSequence() });
    return { llama, model, context, chat, aside };
  } catch (error) {
    await llama.dispose().catch(() => undefined);
    throw error;
  }
}

/**
 * The conversation as llama.cpp's chat history: one system message first (with the action protocol
 * when the turn offers tools), tool results as user messages naming their tool, calls as the JSON
 * actions the model wrote; consecutive messages of one side joined. Ends with the model's empty turn.
 */
export function toHistory(
  messages: ChatModelMessage[],
  tools: ChatToolDefinition[] | undefined,
  options: { answerAfterCalls?: boolean } = {},
): ChatHistoryItem[] {
  const items: ChatHistoryItem[] = [];
  const system: string[] = [];
  const callNames = new Map<string, string>();
  const add = (type: 'user' | 'model', text: string) => {
    const last = items.at(-1);
    if (last?.type === 'user' && type === 'user') last.text = `${last.text}\n\n${text}`;
    else if (last?.type === 'model' && type === 'model') last.response.push(`\n\n${text}`);
    else items.push(type === 'user' ? { type, text } : { type, response: [text] });
  };
  // With `answerAfterCalls`, the model's answer action follows the last call's results.
  const lastCall = options.answerAfterCalls
    ? messages.findLastIndex(
        (message) => message.role === 'tool' || (message.role === 'assistant' && !!message.toolCalls?.length),
      )
    : -1;
  for (const [position, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        // Instructions before the conversation set it up; later ones (a budget note) are news.
        if (items.length === 0) system.push(message.content);
        else add('user', message.content);
        break;
      case 'user':
        add('user', message.content);
        break;
      case 'assistant':
        for (const call of message.toolCalls ?? []) callNames.set(call.id, call.name);
        if (message.toolCalls?.length) {
          for (const call of message.toolCalls) add('model', actionText(call));
        } else if (message.content) {
          add('model', message.content);
        }
        break;
      case 'tool':
        add('user', `Result of ${callNames.get(message.toolCallId) ?? 'the action'}:\n${message.content}`);
        break;
    }
    if (position === lastCall) add('model', answerAction);
  }
  // The protocol first: it is the same in every run, while the agent's instructions end with the
  // run's fence nonce, so a new run re-evaluates only the instructions (the sequence keeps the prefix).
  if (tools) system.unshift(actionProtocol(tools));
  const history: ChatHistoryItem[] = [];
  if (system.length > 0) history.push({ type: 'system', text: system.join('\n\n') });
  history.push(...items, { type: 'model', response: [] });
  return history;
}

/**
 * Each choice's probability as the model's next reply after `history`, from one evaluation of the
 * context (the sequence keeps what it already holds): the probability of a choice's first token,
 * with its capitalised form added ("Yes" and "yes"), normalised over the choices. Undefined when two
 * choices start with the same token or the context does not fit (the caller then samples under a
 * grammar instead).
 */
async function choiceProbabilities(
  model: LlamaModel,
  chat: LlamaChat,
  history: ChatHistoryItem[],
  choices: string[],
): Promise<Record<string, number> | undefined> {
  const firstTokens = choices.map((choice) => {
    const forms = new Set([
      choice,
      `${choice.charAt(0).toUpperCase()}${choice.slice(1)}`,
      choice.toLowerCase(),
    ]);
    return new Set([...forms].flatMap((form) => model.tokenize(form, false, 'trimLeadingSpace').slice(0, 1)));
  });
  const seen = new Set<number>();
  for (const tokens of firstTokens) {
    for (const token of tokens) {
      if (seen.has(token)) return undefined;
      seen.add(token);
    }
    if (tokens.size === 0) return undefined;
  }
  const { contextText } = chat.chatWrapper.generateContextState({ chatHistory: history });
  const tokens = contextText.tokenize(model.tokenizer);
  const sequence = chat.sequence;
  if (tokens.length + 1 >= sequence.context.contextSize) return undefined;
  // Keep what the sequence already holds of this context; at least the last token is evaluated
  // again, for the probabilities that follow it.
  const keep = Math.min(sequence.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
  if (keep < sequence.nextTokenIndex)
    await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  const rest = tokens.slice(keep);
  const output = await sequence.controlledEvaluate(
    rest.map((token, index) =>
      index === rest.length - 1 ? [token, { generateNext: { probabilities: true } }] : token,
    ),
  );
  const next = output.at(-1)?.next.probabilities;
  if (!next) return undefined;
  const raw = firstTokens.map((set) => [...set].reduce((sum, token) => sum + (next.get(token) ?? 0), 0));
  const total = raw.reduce((sum, value) => sum + value, 0);
  if (!(total > 0)) return undefined;
  return Object.fromEntries(choices.map((choice, index) => [choice, (raw[index] ?? 0) / total]));
}

/** A GBNF grammar whose only sentences are the given words. */
export function choiceGrammarText(choices: string[]): string {
  return `root ::= ${choices.map((choice) => JSON.stringify(choice)).join(' | ')}`;
}

/** A call as the JSON action the model writes for it (unparseable arguments are left out). */
function actionText(call: ChatToolCall): string {
  let args: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(call.arguments) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      args = parsed as Record<string, unknown>;
  } catch {}
  return JSON.stringify({ action: call.name, ...args });
}

type Schema = Record<string, unknown>;

/**
 * The grammar's schema: one object per tool (`action` fixed to its name, its arguments; the optional
 * ones may be null, as the grammar makes every listed key appear), or `{"action": "answer"}`.
 */
export function actionSchema(tools: ChatToolDefinition[]): Schema {
  return {
    oneOf: [
      ...tools.map((tool) => {
        const required = new Set(requiredOf(tool.parameters));
        const properties: Record<string, Schema> = { action: { const: tool.name } };
        for (const [name, schema] of Object.entries(propertiesOf(tool.parameters))) {
          const value = grammarSchema(schema);
          properties[name] = required.has(name) ? value : { oneOf: [value, { type: 'null' }] };
        }
        return { type: 'object', properties, additionalProperties: false };
      }),
      { type: 'object', properties: { action: { const: 'answer' } }, additionalProperties: false },
    ],
  };
}

/** A JSON Schema reduced to what the grammar supports (bounds it cannot express are dropped). */
function grammarSchema(schema: Schema): Schema {
  if (Array.isArray(schema.enum)) return { enum: schema.enum };
  if ('const' in schema) return { const: schema.const };
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return { oneOf: variants.map(grammarSchema) };
  switch (schema.type) {
    case 'string': {
      const result: Schema = { type: 'string' };
      // Arguments are keywords, ids and questions: 300 characters at most keeps a small model that
      // repeats itself from spending the step's tokens on one string.
      result.maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 300, 300);
      if (typeof schema.minLength === 'number' && schema.minLength <= 10) result.minLength = schema.minLength;
      return result;
    }
    case 'integer':
    case 'number':
    case 'boolean':
    case 'null':
      return { type: schema.type };
    case 'array':
      return {
        type: 'array',
        ...(schema.items && typeof schema.items === 'object'
          ? { items: grammarSchema(schema.items as Schema) }
          : {}),
      };
    case 'object': {
      const required = new Set(requiredOf(schema));
      const properties: Record<string, Schema> = {};
      for (const [name, value] of Object.entries(propertiesOf(schema))) {
        const reduced = grammarSchema(value);
        properties[name] = required.has(name) ? reduced : { oneOf: [reduced, { type: 'null' }] };
      }
      return { type: 'object', properties, additionalProperties: false };
    }
    default:
      // No type: any JSON scalar is the closest the grammar can say.
      return { type: ['string', 'number', 'boolean', 'null'] };
  }
}

function propertiesOf(schema: Schema): Record<string, Schema> {
  const properties = schema.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, Schema>) : {};
}

function requiredOf(schema: Schema): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

function typeLabel(schema: Schema): string {
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants)) return variants.map(typeLabel).join(' or ');
  return typeof schema.type === 'string' ? schema.type : 'value';
}

/**
 * The action the model wrote: a tool call (null arguments dropped, as they mean "not given"), or
 * "answer"; undefined when the JSON is incomplete or names no offered tool.
 */
export function parseAction(
  text: string,
  tools: ChatToolDefinition[],
): { kind: 'answer' } | { kind: 'call'; call: ChatToolCall } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { action, ...rest } = parsed as Record<string, unknown>;
  if (action === 'answer') return { kind: 'answer' };
  if (typeof action !== 'string' || !tools.some((tool) => tool.name === action)) return undefined;
  const args = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== null));
  return {
    kind: 'call',
    call: { id: `call_${crypto.randomUUID().slice(0, 8)}`, name: action, arguments: JSON.stringify(args) },
  };
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

/** A push-to-pull queue: the turn pushes events, `stream()` yields them as they come. */
class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private done = false;
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;

  push(item: T) {
    this.items.push(item);
    this.notify();
  }

  end() {
    this.done = true;
    this.notify();
  }

  fail(error: unknown) {
    this.failed = true;
    this.error = error;
    this.notify();
  }

  private notify() {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.failed) throw this.error;
      if (this.done) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
