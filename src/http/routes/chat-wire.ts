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

export const chatCompletionRequestSchema = z
  .object({
    model: z.string().max(200).optional().describe('Ignored: the service always uses its own model.'),
    messages: z
      .array(chatMessageSchema)
      .min(1, 'messages must not be empty')
      .max(200, 'messages must hold at most 200 items')
      .describe('The conversation; the last user message is the question.'),
    stream: z.boolean().nullish().describe('Stream the answer as server-sent events (recommended).'),
    stream_options: z
      .object({ include_usage: z.boolean().nullish() })
      .nullish()
      .describe('With include_usage, a last chunk carries the token usage.'),
  })
  .meta({ id: 'ChatCompletionRequest' });

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
          reasoning_content: z.string().optional().describe('What the agent searched and read.'),
        }),
        finish_reason: z.literal('stop'),
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
  finishReason: 'stop' | null = null,
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
