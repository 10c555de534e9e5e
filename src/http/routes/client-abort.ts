import type { FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.js';

/**
 * A signal that aborts when the client goes away before its answer is sent, so the work done for
 * it (a parse waiting for its turn) stops. The response's `close` tells that; the request's fires
 * as soon as its body has been read.
 */
export function abortOnClientClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) {
      controller.abort(new AppError('timeout', 'The client closed the request'));
    }
  });
  return controller.signal;
}
