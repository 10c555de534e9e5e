import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { chatMessageSchema } from '../../domain/chat.js';
import type { TokenUsage } from '../../ports/chat-model.js';

/**
 * The OpenAI Chat Completions wire format, as we serve it: request schema, response objects and
 * the server-sent-events writer. Hand-written SSE, because openai-node sends `Accept:
 * application/json` even when it streams (STACK.md §1), so streaming is decided by `body.stream`.
 */

/** Why client tools are refused (docs/decisions/0030-chat-details.md). */
const ownToolsMessage =
  'this endpoint runs its own research agent, which calls its own tools (search, read, ask); it cannot call tools of yours. Send the question without tools (or with tool_choice "none")';

/**
 * Parameters the agent cannot honour, refused with a 400 naming them unless they ask for nothing
 * (decision 0047): the agent writes markdown text with citations, streamed as the model writes it.
 * `response_format` other than text (LangChain's structured output would fail parsing the answer),
 * `stop` sequences, `logit_bias`, log probabilities, audio and other output modalities, predicted
 * outputs. Sampling settings (`temperature`, `top_p`, penalties, `seed`) and bookkeeping (`user`,
 * `metadata`, `store`) do not change what the answer is and are accepted and ignored.
 */
const unsupported: Record<string, { asksNothing: (value: unknown) => boolean; why: string }> = {
  response_format: {
    asksNothing: (value) =>
      typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'text',
    why: 'the research agent answers in markdown text with citations; it cannot hold the answer to a JSON format or schema. Send response_format {"type": "text"} or leave it out',
  },
  stop: {
    asksNothing: (value) => value === '' || (Array.isArray(value) && value.length === 0),
    why: 'the research agent cannot stop its answer at stop sequences; leave stop out (max_tokens cuts the answer)',
  },
  logit_bias: {
    asksNothing: (value) => typeof value === 'object' && value !== null && Object.keys(value).length === 0,
    why: 'the research agent cannot bias tokens; leave logit_bias out',
  },
  logprobs: {
    asksNothing: (value) => value === false,
    why: 'the research agent returns no log probabilities; leave logprobs out',
  },
  top_logprobs: {
    asksNothing: (value) => value === 0,
    why: 'the research agent returns no log probabilities; leave top_logprobs out',
  },
  modalities: {
    asksNothing: (value) => Array.isArray(value) && value.every((entry) => entry === 'text'),
    why: 'the research agent answers in text only',
  },
  audio: { asksNothing: () => false, why: 'the research agent answers in text only' },
  prediction: {
    asksNothing: () => false,
    why: 'the research agent cannot use a predicted output; leave prediction out',
  },
};

const tokenLimit = (name: string) =>
  z
    .number()
    .int(`${name} must be an integer`)
    .min(1, `${name} must be at least 1`)
    .max(1_000_000, `${name} must be at most 1000000`)
    .nullish();

export const chatCompletionRequestSchema = z
  .object({
    model: z.string().max(200).optional().describe('Ignored: the service always uses its own model.'),
    messages: z
      .array(chatMessageSchema)
      .min(1, 'messages must not be empty')
      .max(200, 'messages must hold at most 200 items')
      .describe(
        'The conversation; the last user message is the question. Content is a string or an array of text parts; `developer` is read as `system`.',
      ),
    stream: z.boolean().nullish().describe('Stream the answer as server-sent events (recommended).'),
    stream_options: z
      .object({ include_usage: z.boolean().nullish() })
      .nullish()
      .describe('With include_usage, a last chunk carries the token usage.'),
    max_tokens: tokenLimit('max_tokens').describe(
      'Most tokens of the answer (content; progress is not counted), counted as usage counts them. A longer answer is cut, with finish_reason "length".',
    ),
    max_completion_tokens: tokenLimit('max_completion_tokens').describe(
      'Same as max_tokens (the newer name); with both, the smaller applies.',
    ),
    n: z
      .number()
      .int('n must be an integer')
      .nullish()
      .refine((n) => n === null || n === undefined || n === 1, {
        message: 'n must be 1: the research agent writes one answer per request (send several requests)',
      })
      // The document says what the refinement enforces (decision 0052).
      .meta({ enum: [1] })
      .describe('Only 1: one answer per request.'),
    tools: z
      .array(z.unknown())
      .max(128)
      .meta({ maxItems: 0 })
      .nullish()
      .describe('Refused unless empty: the agent uses its own tools.'),
    tool_choice: z
      .union([z.string().max(100), z.object({}).loose()])
      .meta({ enum: ['none', 'auto'] })
      .nullish()
      .describe('Only "none" or "auto" (no client tools are called).'),
    functions: z
      .array(z.unknown())
      .max(128)
      .meta({ maxItems: 0 })
      .nullish()
      .describe('Refused unless empty, as tools.'),
    function_call: z
      .union([z.string().max(100), z.object({}).loose()])
      .meta({ enum: ['none', 'auto'] })
      .nullish()
      .describe('Only "none" or "auto", as tool_choice.'),
    ...Object.fromEntries(
      Object.keys(unsupported).map((name) => [
        name,
        z.unknown().optional().describe(`Refused unless it asks for nothing: ${unsupported[name]?.why}.`),
      ]),
    ),
  })
  .superRefine((body, context) => {
    for (const [name, rule] of Object.entries(unsupported)) {
      const value = (body as Record<string, unknown>)[name];
      if (value !== undefined && value !== null && !rule.asksNothing(value))
        context.addIssue({ code: 'custom', path: [name], message: `${name} is not supported: ${rule.why}` });
    }
    const passive = (choice: unknown) =>
      choice === null || choice === undefined || choice === 'none' || choice === 'auto';
    if (!passive(body.tool_choice)) {
      context.addIssue({ code: 'custom', path: ['tool_choice'], message: ownToolsMessage });
    }
    if (!passive(body.function_call)) {
      context.addIssue({
        code: 'custom',
        path: ['function_call'],
        message: ownToolsMessage,
      });
    }
    if ((body.tools?.length ?? 0) > 0 && body.tool_choice !== 'none') {
      context.addIssue({ code: 'custom', path: ['tools'], message: ownToolsMessage });
    }
    if ((body.functions?.length ?? 0) > 0 && body.function_call !== 'none') {
      context.addIssue({ code: 'custom', path: ['functions'], message: ownToolsMessage });
    }
  })
  .meta({ id: 'ChatCompletionRequest' });

/** The answer limit a request sets (`max_tokens`, `max_completion_tokens`: the smaller), if any. */
export function answerTokenLimit(body: {
  max_tokens?: number | null | undefined;
  max_completion_tokens?: number | null | undefined;
}): number | undefined {
  const limits = [body.max_tokens, body.max_completion_tokens].filter(
    (limit): limit is number => typeof limit === 'number',
  );
  return limits.length > 0 ? Math.min(...limits) : undefined;
}

const usageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

export const chatCompletionSchema = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string(),
          refusal: z.null().describe('Always null: the agent does not refuse in a separate field.'),
          reasoning_content: z.string().optional().describe('What the agent searched and read.'),
        }),
        finish_reason: z.enum(['stop', 'length']),
        logprobs: z.null(),
      }),
    ),
    usage: usageSchema,
  })
  .meta({ id: 'ChatCompletion' });

export const modelSchema = z
  .object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() })
  .meta({ id: 'Model' });

export function usageOf(usage: TokenUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** Identity of one completion, shared by all its chunks. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

export function chunkOf(
  identity: CompletionIdentity,
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string },
  finishReason: 'stop' | 'length' | null = null,
) {
  return {
    ...identity,
    object: 'chat.completion.chunk' as const,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

/**
 * Writes `data:` frames to a hijacked response, with a keep-alive comment whenever nothing was
 * written for `keepAliveMs`. Writes wait for `drain` when the client reads slowly.
 */
export class SseWriter {
  private lastWrite = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly raw: ServerResponse,
    keepAliveMs: number,
  ) {
    this.timer = setInterval(
      () => {
        if (Date.now() - this.lastWrite >= keepAliveMs) void this.write(': keep-alive\n\n');
      },
      Math.max(10, Math.floor(keepAliveMs / 2)),
    );
    this.timer.unref();
  }

  /** Whether the client is gone (nothing more can be written). */
  get closed(): boolean {
    return this.raw.destroyed || this.raw.writableEnded;
  }

  /**
   * Writes one frame. With `flush`, waits one event-loop turn so the frame leaves now: Node corks
   * the socket on every write until the next tick, and the step that follows a progress line (a
   * SQLite search, say) may block the loop for a while.
   */
  async data(value: unknown, options: { flush?: boolean } = {}): Promise<void> {
    await this.write(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
    if (options.flush) await new Promise((resolve) => setImmediate(resolve));
  }

  end(): void {
    clearInterval(this.timer);
    if (!this.raw.writableEnded) this.raw.end();
  }

  private async write(frame: string): Promise<void> {
    if (this.closed) return;
    this.lastWrite = Date.now();
    if (!this.raw.write(frame)) {
      await Promise.race([once(this.raw, 'drain'), once(this.raw, 'close')]);
    }
  }
}

/**
 * The client's answer limit (`max_tokens`): passes the answer through until it holds `maxTokens`
 * tokens, counted as usage counts them (four characters a token, `estimateTokens`), and cuts the
 * piece that crosses it. A cut never splits a UTF-16 surrogate pair, nor leaves half of a markdown
 * link that starts in the piece being cut (the link is dropped whole).
 */
export class AnswerLimit {
  private sentLength = 0;
  /** True once the limit cut the answer (`finish_reason: "length"`). */
  reached = false;

  constructor(private readonly maxTokens: number | undefined) {}

  /** The part of `text` that still fits. */
  take(text: string): string {
    if (this.maxTokens === undefined) return text;
    if (this.reached) return '';
    const room = this.maxTokens * 4 - this.sentLength;
    if (text.length <= room) {
      this.sentLength += text.length;
      return text;
    }
    this.reached = true;
    let end = Math.max(0, room);
    const code = text.charCodeAt(end - 1);
    if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
    let kept = text.slice(0, end);
    const openLink = /!?\[[^\]\n]*(?:\]\([^)\s]*)?$/.exec(kept);
    if (openLink) kept = kept.slice(0, openLink.index);
    this.sentLength += kept.length;
    return kept;
  }
}
