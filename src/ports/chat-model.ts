/**
 * A chat model that streams a completion and can call tools: the research agent's planner and
 * writer. Implementation: any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, Ollama,
 * llama.cpp server). When none is configured the agent runs its extractive pipeline instead, so no
 * code path needs a model to exist.
 */
export interface ChatModel {
  /** Name of the upstream model (for logs; never shown to API clients, who see our own name). */
  readonly id: string;
  /**
   * One completion turn, streamed. Text arrives as `text` events as the model writes it; tool calls
   * arrive whole (arguments reassembled from their fragments) once the model has finished them; the
   * stream ends with exactly one `finish` event. Aborting `signal` cancels the upstream request and
   * makes the iterator throw the signal's reason. Failures throw `AppError`: `timeout` when the turn
   * takes longer than `timeoutMs`, else `upstream_unavailable` (an `UpstreamError` that says whether
   * a retry can help: connection refused, 429, 5xx, a refused request, an unparseable stream).
   */
  stream(request: ChatTurnRequest): AsyncIterable<ChatStreamEvent>;
}

/** A message of the conversation sent to the model. */
export type ChatModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ChatToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ChatToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A call the model made: `arguments` is the raw JSON text the model wrote (may be invalid). */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatTurnRequest {
  messages: ChatModelMessage[];
  /** Tools offered for this turn; none (or empty) means the model must answer in text. */
  tools?: ChatToolDefinition[];
  /**
   * The reply must be exactly one of these words (a turn without tools): the local adapter holds
   * the model to them with a grammar; other adapters send the turn as it is, and the caller reads
   * the reply's first word (the prompt names the choices too).
   */
  choices?: string[];
  /**
   * With tools: when the model decides to answer rather than call a tool, end the turn there
   * (finish `stop`, no text), so the caller can take a step of its own before asking for the answer
   * in a turn without tools. Adapters where the answer is the turn's own text (OpenAI tool calling)
   * ignore it.
   */
  answerSeparately?: boolean;
  /** Upper bound of generated tokens for this turn. */
  maxTokens?: number;
  /** Sampling temperature; the adapter's default when absent. */
  temperature?: number;
  /** Per-call deadline in milliseconds (the adapter's configured default when absent). */
  timeoutMs?: number;
  /**
   * A side question whose messages are not a continuation of the conversation (the verdict step's
   * classification): the local adapter evaluates it apart, so the conversation's evaluated prefix
   * is kept for the next turn. Other adapters send every turn whole and ignore it.
   */
  isolated?: boolean;
  signal?: AbortSignal;
}

/** Tokens of one turn as the upstream reports them (estimated from text length when it does not). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export type ChatFinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other';

export type ChatStreamEvent =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ChatToolCall }
  | {
      type: 'finish';
      reason: ChatFinishReason;
      usage: TokenUsage;
      usageEstimated: boolean;
      /**
       * With `choices`, when the adapter can read them: each choice's probability as the model's
       * next reply (its first token's, over the choices: they add up to 1). The turn's text is then
       * the most probable choice; a caller may weigh them otherwise (the agent's verdict step).
       */
      choiceProbabilities?: Record<string, number>;
    };

/** Rough token count of text (≈ 4 characters a token for English), for budgets and estimates. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
