import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
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
  /**
   * Stream the turns that offer tools (default true). Some servers cannot stream a request with
   * tools: llama-cpp-python 0.3 fails with "Automatic streaming tool choice is not supported" after
   * the stream's headers (an empty stream), other versions with an HTTP error. After either the
   * adapter asks such turns unstreamed from then on; `false` skips the first try.
   */
  streamToolTurns?: boolean;
  /**
   * The role tool results are sent in: `tool` (default, the API's own) or `user` ("Result of
   * search(…):" then the text) for a server whose prompt template drops `tool` messages
   * (llama-cpp-python 0.3's chatml-function-calling renders them empty: the model never sees them).
   */
  toolResultRole?: 'tool' | 'user';
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
  /** Turns with tools go unstreamed: configured, or learnt from the server's refusal to stream them. */
  private toolTurnsWhole: boolean;

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
    this.toolTurnsWhole = options.streamToolTurns === false;
  }

  async *stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const messages = toWireMessages(request.messages, this.options.toolResultRole ?? 'tool');
    const tools = request.tools?.length ? request.tools.map(toWireTool) : undefined;
    const body = {
      model: this.options.model,
      messages,
      ...(tools ? { tools, tool_choice: 'auto' as const } : {}),
      ...(request.maxTokens
        ? { [this.options.tokenLimitParameter ?? 'max_completion_tokens']: request.maxTokens }
        : {}),
      ...(reasoningModel(this.options.model)
        ? {}
        : { temperature: request.temperature ?? this.options.temperature ?? 0.2 }),
    };
    let turn: WireTurn | undefined;
    try {
      if (!(tools && this.toolTurnsWhole)) {
        const streamed = this.streamed(body, signal);
        let yielded = false;
        try {
          for (let next = await streamed.next(); ; next = await streamed.next()) {
            if (next.done) {
              turn = next.value;
              break;
            }
            yielded = true;
            yield { type: 'text', text: next.value };
          }
        } catch (error) {
          // A server that cannot stream tool calls refuses before its stream starts: ask it whole.
          if (yielded || !(tools && refusesToStreamTools(error))) throw error;
          this.toolTurnsWhole = true;
        } finally {
          // The caller stopped reading mid-stream: close the response (a no-op once it ended).
          if (!turn) await streamed.return({ text: '', calls: new Map(), chunks: 0 });
        }
        // llama-cpp-python 0.3.16 sends the stream's headers, then fails: an empty stream.
        if (turn && turn.chunks === 0) {
          if (!tools) throw new UpstreamError(source, 'The chat model ended its stream without a chunk');
          this.toolTurnsWhole = true;
          turn = undefined;
        }
      }
      if (!turn) {
        turn = await this.whole(body, signal);
        if (turn.text) yield { type: 'text', text: turn.text };
      }
    } catch (error) {
      throw mapError(error, { request: request.signal, deadline, timeoutMs });
    }
    const { text, usage } = turn;
    const toolCalls = [...turn.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
    for (const call of toolCalls) yield { type: 'tool_call', call };
    yield {
      type: 'finish',
      // Some servers end a tool-calling turn with "stop"; what matters is whether calls came.
      reason: toolCalls.length > 0 ? 'tool_calls' : (turn.finish ?? 'other'),
      usage: usage
        ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
        : {
            promptTokens: estimateTokens(JSON.stringify(messages)),
            completionTokens: estimateTokens(text + toolCalls.map((call) => call.arguments).join('')),
          },
      usageEstimated: !usage,
    };
  }

  /** A streamed turn: yields its text as it comes, returns the whole turn. */
  private async *streamed(body: WireBody, signal: AbortSignal): AsyncGenerator<string, WireTurn> {
    const turn: WireTurn = { text: '', calls: new Map(), chunks: 0 };
    const stream = await this.client.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    for await (const chunk of stream) {
      turn.chunks += 1;
      if (chunk.usage) turn.usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const content = choice.delta?.content;
      if (content) {
        turn.text += content;
        yield content;
      }
      for (const [position, fragment] of (choice.delta?.tool_calls ?? []).entries()) {
        mergeToolCall(turn.calls, fragment, position);
      }
      if (choice.finish_reason) turn.finish = finishReasonOf(choice.finish_reason);
    }
    // The client ends its stream quietly when the signal aborts mid-stream: a cut, not an end.
    if (signal.aborted) throw signal.reason;
    return turn;
  }

  /** An unstreamed turn (a server that cannot stream tool calls): its text arrives at once. */
  private async whole(body: WireBody, signal: AbortSignal): Promise<WireTurn> {
    const response = await this.client.chat.completions.create({ ...body, stream: false }, { signal });
    const choice = response.choices?.[0];
    const turn: WireTurn = {
      text: choice?.message?.content ?? '',
      calls: new Map(),
      chunks: 1,
      usage: response.usage,
    };
    for (const [position, call] of (choice?.message?.tool_calls ?? []).entries()) {
      if (call.type !== 'function') continue;
      turn.calls.set(position, { id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
    if (choice?.finish_reason) turn.finish = finishReasonOf(choice.finish_reason);
    return turn;
  }
}

type WireBody = Omit<ChatCompletionCreateParamsStreaming, 'stream' | 'stream_options'>;

/** One model turn as the server sent it, streamed or whole. */
interface WireTurn {
  text: string;
  /** Tool calls by their index. */
  calls: Map<number, ChatToolCall>;
  finish?: ChatFinishReason;
  /** Chunks the server sent (1 for an unstreamed answer); 0 is a stream that failed after its headers. */
  chunks: number;
  /** Absent when the server sends none (llama-cpp-python ignores `stream_options`). */
  usage?: CompletionUsage | null | undefined;
}

/**
 * The server's answer to a streamed request that offers tools says it cannot stream them
 * (llama-cpp-python 0.3's chatml-function-calling: HTTP 500 "Automatic streaming tool choice is not
 * supported"); such a server answers the same request unstreamed.
 */
export function refusesToStreamTools(error: unknown): boolean {
  if (!(error instanceof APIError) || error instanceof APIConnectionError) return false;
  const message = error.message ?? '';
  return /stream/i.test(message) && /not supported|unsupported|not implemented/i.test(message);
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

function toWireMessages(
  messages: ChatModelMessage[],
  toolResultRole: 'tool' | 'user',
): ChatCompletionMessageParam[] {
  const calls = new Map(
    messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => [call.id, call] as const) : [],
    ),
  );
  return messages.map((message) => {
    if (message.role !== 'tool' || toolResultRole === 'tool') return toWireMessage(message);
    const call = calls.get(message.toolCallId);
    const named = call ? `${call.name}(${call.arguments})` : message.toolCallId;
    return { role: 'user', content: `Result of ${named}:\n${message.content}` };
  });
}

function toWireMessage(message: ChatModelMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        // A string, never null: llama-cpp-python refuses null (HTTP 500) and its chatml-function-calling
        // template fails on a missing content; OpenAI takes "" beside tool calls.
        content: message.content ?? '',
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
  if (error instanceof UpstreamError) return error;
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
