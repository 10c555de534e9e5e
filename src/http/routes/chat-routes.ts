import type { OutgoingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { RunSummary } from '../../agent/agent-types.js';
import type { ChatMessage } from '../../domain/chat.js';
import { AppError } from '../../domain/errors.js';
import { newId } from '../../platform/ids.js';
import { estimateTokens, type TokenUsage } from '../../ports/chat-model.js';
import { principalOf } from '../auth.js';
import { envelope, toAppError } from '../error-handler.js';
import { bodyErrorResponses, errorResponses } from '../schemas.js';
import {
  AnswerLimit,
  answerTokenLimit,
  type CompletionIdentity,
  chatCompletionRequestSchema,
  chatCompletionSchema,
  chunkOf,
  modelSchema,
  SseWriter,
  usageOf,
} from './chat-wire.js';
import type { RouteModule } from './route-context.js';

const modelCreated = 1_764_000_000;

/**
 * The OpenAI-compatible surface of the research agent: `POST /api/chat/completions` (streamed as
 * server-sent events when `stream` is true, one JSON object otherwise) and `GET /api/models`. A
 * client that disconnects aborts the run and every call it has in flight.
 */
export const chatRoutes: RouteModule = (app, { services, config }) => {
  const research = services.research;
  const model = () => ({
    id: research.modelName,
    object: 'model' as const,
    created: modelCreated,
    owned_by: 'alexandria',
  });

  app.get(
    '/api/models',
    {
      config: { access: 'key' },
      schema: {
        summary: 'List models',
        description: 'The one model the chat endpoint serves (OpenAI clients list models before chatting).',
        tags: ['chat'],
        response: {
          200: z.object({ object: z.literal('list'), data: z.array(modelSchema) }),
          ...errorResponses,
        },
      },
    },
    async () => ({ object: 'list' as const, data: [model()] }),
  );

  app.get(
    '/api/models/:model',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Get a model',
        tags: ['chat'],
        params: z.object({ model: z.string().min(1).max(200) }),
        response: { 200: modelSchema, ...errorResponses },
      },
    },
    async (request) => {
      if (request.params.model !== research.modelName) {
        throw new AppError(
          'not_found',
          `No model "${request.params.model}"; the model is ${research.modelName}`,
          {
            param: 'model',
          },
        );
      }
      return model();
    },
  );

  app.post(
    '/api/chat/completions',
    {
      config: { access: 'key' },
      schema: {
        summary: 'Ask the research agent (OpenAI Chat Completions)',
        description:
          'A research question (the last user message). It searches, reads and answers in markdown with citations; `stream: true` sends server-sent events ending with `data: [DONE]`. Client `tools`, `stop`, `logit_bias`, `logprobs`, audio and a non-text `response_format` get a 400 naming them.',
        tags: ['chat'],
        body: chatCompletionRequestSchema,
        response: {
          200: {
            description: 'The answer: one JSON object, or server-sent events with `stream: true`.',
            content: {
              'application/json': { schema: chatCompletionSchema },
              // In OpenAPI 3.1 the schema of an event stream describes one event (decision 0052).
              'text/event-stream': {
                schema: z
                  .object({
                    data: z.string().describe('A chat.completion.chunk as JSON; the last event is `[DONE]`.'),
                    event: z.string().optional(),
                    id: z.string().optional(),
                    retry: z.number().int().optional(),
                  })
                  .describe(
                    'One server-sent event: `data: <chat.completion.chunk JSON>`, ending with `data: [DONE]`.',
                  ),
              },
            },
          },
          ...errorResponses,
          ...bodyErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = principalOf(request);
      const body = request.body;
      research.checkRequest(body.messages);
      const identity: CompletionIdentity = {
        id: `chatcmpl-${newId('c', 24).slice(2)}`,
        created: Math.floor(Date.now() / 1000),
        model: research.modelName,
      };
      const controller = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableFinished) controller.abort(new Error('The client closed the connection'));
      });
      const events = research.run({
        tenantId,
        messages: body.messages,
        signal: controller.signal,
        logger: request.log,
      });
      const limitTokens = answerTokenLimit(body);
      const limit = new AnswerLimit(limitTokens);
      // The answer is complete at the limit: stop the run's work still in flight (searches, reads).
      const stopAtLimit = () => {
        if (limit.reached) controller.abort(new Error('The answer reached max_tokens'));
      };

      if (!body.stream) {
        let content = '';
        let reasoning = '';
        let summary: RunSummary | undefined;
        try {
          for await (const event of events) {
            if (event.type === 'content') {
              content += limit.take(event.text);
              if (limit.reached) break;
            } else if (event.type === 'progress') reasoning += event.text;
            else summary = event.summary;
          }
          stopAtLimit();
        } catch (error) {
          if (!controller.signal.aborted) throw error;
          // The client is gone: nobody to answer, and not a server failure worth an error log.
          request.log.info('chat completion aborted by the client');
          reply.hijack();
          reply.raw.destroy();
          return reply;
        }
        return {
          ...identity,
          object: 'chat.completion' as const,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant' as const,
                content,
                refusal: null,
                ...(reasoning ? { reasoning_content: reasoning } : {}),
              },
              finish_reason: limit.reached ? ('length' as const) : ('stop' as const),
              logprobs: null,
            },
          ],
          usage: usageOf(completionUsage(body.messages, summary, limitTokens, content)),
        };
      }

      reply.hijack();
      // Headers set so far (CORS, x-request-id, rate limit) would be lost after hijack without the spread.
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const sse = new SseWriter(reply.raw, config.chat.keepAliveMs);
      try {
        await sse.data(chunkOf(identity, { role: 'assistant', content: '' }), { flush: true });
        let summary: RunSummary | undefined;
        let content = '';
        for await (const event of events) {
          if (event.type === 'content') {
            const text = limit.take(event.text);
            content += text;
            if (text) await sse.data(chunkOf(identity, { content: text }));
            if (limit.reached) break;
          } else if (event.type === 'progress')
            await sse.data(chunkOf(identity, { reasoning_content: event.text }), { flush: true });
          else summary = event.summary;
        }
        stopAtLimit();
        await sse.data(chunkOf(identity, {}, limit.reached ? 'length' : 'stop'));
        if (body.stream_options?.include_usage) {
          await sse.data({
            ...identity,
            object: 'chat.completion.chunk',
            choices: [],
            usage: usageOf(completionUsage(body.messages, summary, limitTokens, content)),
          });
        }
        await sse.data('[DONE]');
        if (summary) request.log.info({ agent: logSummary(summary) }, 'chat completion streamed');
        else if (limit.reached)
          request.log.info({ maxTokens: limitTokens }, 'chat completion cut at max_tokens');
      } catch (error) {
        if (controller.signal.aborted) {
          request.log.info('chat stream aborted by the client');
        } else {
          const appError = toAppError(error);
          if (appError.code === 'internal') request.log.error({ err: error }, 'chat stream failed');
          else request.log.warn({ code: appError.code, message: appError.message }, 'chat stream failed');
          await sse.data(envelope(appError));
        }
      } finally {
        sse.end();
      }
    },
  );
};

/**
 * The usage of a completion. Without an answer limit: the run's own counts. With one, the
 * completion tokens are the answer sent, counted as the limit counts them (four characters a
 * token), so they never exceed `max_tokens`; a run cut at the limit has no summary, and its prompt
 * is estimated the same way.
 */
function completionUsage(
  messages: ChatMessage[],
  summary: RunSummary | undefined,
  limitTokens: number | undefined,
  content: string,
): TokenUsage {
  if (limitTokens === undefined) return summary?.usage ?? { promptTokens: 0, completionTokens: 0 };
  return {
    promptTokens:
      summary?.usage.promptTokens ?? estimateTokens(messages.map((message) => message.content).join('\n')),
    completionTokens: estimateTokens(content),
  };
}

function logSummary(summary: RunSummary) {
  return {
    mode: summary.mode,
    steps: summary.steps,
    stoppedBy: summary.stoppedBy,
    stepMs: summary.stepMs,
    sources: summary.sources,
    cited: summary.citations.cited.length,
    removedCitations: summary.citations.removed.length,
    citationsDropped: summary.support?.dropped,
    uncitedSentences: summary.support?.uncitedSentences,
    fallback: summary.fallback,
    refusedToolCalls: summary.refusedToolCalls,
    verdictContradicted: summary.verdictContradicted !== undefined ? true : undefined,
    usage: summary.usage,
  };
}
