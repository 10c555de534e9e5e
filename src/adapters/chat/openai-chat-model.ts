import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { UpstreamError } from '../../domain/errors.js';
import {
  type ChatFinishReason,
  type ChatModel,
  type ChatModelMessage,
  type ChatStreamEvent,
  type ChatToolCall,
  type ChatTurnRequest,
  estimateTokens,
} from '../../ports/chat-model.js';
import { type CallSignals, stoppedCallError } from './call-errors.js';

export interface OpenAiChatModelOptions {
  /** Base URL of the OpenAI-compatible API, e.g. `http://localhost:11434/v1` (Ollama). */
  baseUrl: string;
  /** Bearer key; local servers (Ollama, llama.cpp) accept any placeholder. */
  apiKey?: string | undefined;
  /** Upstream model name (`gpt-4o-mini`, `llama3.1:8b`, …). */
  model: string;
  /** Default per-call deadline in milliseconds. */
  timeoutMs: number;
  /** Retries of a failed request before its stream starts (429, 5xx, connection errors). */
  maxRetries?: number;
  /** Sampling temperature when a request gives none (never sent to a reasoning model). */
  temperature?: number;
  /**
   * The field that carries the answer limit: `max_completion_tokens` (default; OpenAI's reasoning
   * models reject `max_tokens`) or `max_tokens` for servers that know only the older name.
   */
  tokenLimitParameter?: 'max_completion_tokens' | 'max_tokens';
}

/**
 * Whether a model name is of an OpenAI reasoning family (o1, o3, o4-mini, gpt-5, …, perhaps after a
 * provider prefix such as `openai/`): those reject any temperature but the default.
 */
export function reasoningModel(name: string): boolean {
  return /(?:^|[/:])(?:o\d+(?:$|[-.:_])|gpt-5)/i.test(name.trim());
}

const source = 'chat-model';

/**
 * `ChatModel` over any OpenAI-compatible Chat Completions endpoint, using the official `openai`
 * client (the wire format is the one we also serve, so the client's fidelity is what we want).
 * Explicit options keep the client from reading `OPENAI_*` variables: configuration comes from
 * `src/config` only.
 */
export class OpenAiChatModel implements ChatModel {
  readonly id: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.id = options.model;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'unused',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: options.maxRetries ?? 2,
      // Our own deadline (below) covers the whole stream; the client's covers only the headers.
      timeout: options.timeoutMs,
      logLevel: 'off',
    });
  }

  async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const messages = request.messages.map(toWireMessage);
    const tools = request.tools?.length ? request.tools.map(toWireTool) : undefined;
    const calls = new Map<number, ChatToolCall>();
    let text = '';
    let finish: ChatFinishReason | undefined;
    let usage: ChatCompletionChunk['usage'];
    try {
      const stream = await this.client.chat.completions.create(
        {
          model: this.options.model,
          messages,
          ...(tools ? { tools, tool_choice: 'auto' as const } : {}),
          ...(request.maxTokens
            ? { [this.options.tokenLimitParameter ?? 'max_completion_tokens']: request.maxTokens }
            : {}),
          ...(reasoningModel(this.options.model)
            ? {}
            : { temperature: request.temperature ?? this.options.temperature ?? 0.2 }),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const content = choice.delta?.content;
        if (content) {
          text += content;
          yield { type: 'text', text: content };
        }
        for (const [position, fragment] of (choice.delta?.tool_calls ?? []).entries()) {
          mergeToolCall(calls, fragment, position);
        }
        if (choice.finish_reason) finish = finishReasonOf(choice.finish_reason);
      }
      // The client ends its stream quietly when the signal aborts mid-stream: a cut, not an end.
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      throw mapError(error, { request: request.signal, deadline, timeoutMs });
    }
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
    for (const call of toolCalls) yield { type: 'tool_call', call };
    const estimated = !usage;
    yield {
      type: 'finish',
      // Some servers end a tool-calling turn with "stop"; what matters is whether calls came.
      reason: toolCalls.length > 0 ? 'tool_calls' : (finish ?? 'other'),
      usage: usage
        ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
        : {
            promptTokens: estimateTokens(JSON.stringify(messages)),
            completionTokens: estimateTokens(text + toolCalls.map((call) => call.arguments).join('')),
          },
      usageEstimated: estimated,
    };
  }
}

type WireToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/**
 * Tool-call arguments arrive in fragments keyed by `index` (some servers omit it, or repeat the name
 * in every fragment): the first id and name win, argument text is concatenated.
 */
function mergeToolCall(calls: Map<number, ChatToolCall>, fragment: WireToolCallDelta, position: number) {
  const index = typeof fragment.index === 'number' ? fragment.index : position;
  const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
  calls.set(index, call);
  if (fragment.id && !call.id) call.id = fragment.id;
  if (fragment.function?.name && !call.name) call.name = fragment.function.name;
  if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
}

function finishReasonOf(reason: string): ChatFinishReason {
  return reason === 'stop' || reason === 'tool_calls' || reason === 'length' || reason === 'content_filter'
    ? reason
    : reason === 'function_call'
      ? 'tool_calls'
      : 'other';
}

function toWireMessage(message: ChatModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: 'function' as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    default:
      return { role: message.role, content: message.content };
  }
}

function toWireTool(tool: { name: string; description: string; parameters: Record<string, unknown> }) {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  } satisfies ChatCompletionTool;
}

/** Client errors → AppError; an abort by the caller stays an abort (its reason is rethrown). */
function mapError(error: unknown, context: CallSignals): unknown {
  const stopped = stoppedCallError(error, context);
  if (stopped !== undefined) return stopped;
  if (error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionError) {
    return new UpstreamError(source, `The chat model is unreachable: ${error.message}`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    return new UpstreamError(
      source,
      `The chat model failed${status ? ` with HTTP ${status}` : ''}: ${error.message}`,
      { upstreamStatus: status, cause: error },
    );
  }
  return new UpstreamError(source, `The chat model failed: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}
