import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { boundedMessage } from '../domain/error-message.js';
import { AppError, type ErrorCode, statusOfCode, typeOfCode } from '../domain/errors.js';
import { malformedMultipartError } from './multipart-guard.js';

/** The OpenAI error envelope every failed request gets. */
export interface ErrorEnvelope {
  error: { message: string; type: string; code: ErrorCode; param: string | null };
}

/** The envelope of an error; echoed input in its message is cut short (see `boundedMessage`). */
export function envelope(error: AppError): ErrorEnvelope {
  return {
    error: {
      message: boundedMessage(error.message),
      type: typeOfCode[error.code],
      code: error.code,
      param: error.param ?? null,
    },
  };
}

/** `/messages/0/role` → `messages[0].role` (how OpenAI names nested parameters). */
function paramOfPath(instancePath: string): string | undefined {
  const parts = instancePath.split('/').filter((part) => part.length > 0);
  if (parts.length === 0) return undefined;
  return parts.reduce(
    (name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part),
    '',
  );
}

/** Fastify's own error codes that are the client's fault, with the code they map to. */
const fastifyClientErrors: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
  FST_ERR_VALIDATION: 'invalid_request',
};

/** Maps any thrown value to an AppError; unknown errors become a hidden 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const multipart = malformedMultipartError(error);
  if (multipart) return multipart;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(fastifyError)) {
    const first = fastifyError.validation[0];
    const param = first ? paramOfPath(first.instancePath) : undefined;
    const where = fastifyError.validationContext === 'body' ? 'body field' : 'parameter';
    const emptyBody =
      fastifyError.validationContext === 'body' &&
      param === undefined &&
      /received (undefined|null)$/.test(first?.message ?? '');
    const message = emptyBody
      ? 'Invalid request body: the body is empty or null; send a JSON object'
      : param
        ? `Invalid ${where} ${param}: ${first?.message ?? 'invalid value'}`
        : `Invalid request ${fastifyError.validationContext ?? ''}: ${first?.message ?? 'invalid value'}`.replace(
            '  ',
            ' ',
          );
    return new AppError('invalid_request', message, param === undefined ? {} : { param });
  }
  const mapped = fastifyError.code ? fastifyClientErrors[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped, fastifyError.message);
  if (fastifyError instanceof SyntaxError || fastifyError.statusCode === 400) {
    return new AppError('invalid_request', `Malformed request: ${fastifyError.message}`);
  }
  if (
    typeof fastifyError.statusCode === 'number' &&
    fastifyError.statusCode >= 400 &&
    fastifyError.statusCode < 500
  ) {
    const code = (Object.entries(statusOfCode).find(
      ([, status]) => status === fastifyError.statusCode,
    )?.[0] ?? 'invalid_request') as ErrorCode;
    return new AppError(code, fastifyError.message);
  }
  return new AppError('internal', 'Internal server error', { cause: error });
}

/** Sends an AppError as the OpenAI envelope, with Retry-After when the error has one. */
export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).type('application/json; charset=utf-8').send(envelope(error));
}

/** Installs the one HTTP error boundary and the 404 handler. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal') {
      request.log.error({ err: error }, 'request failed');
    } else if (appError.status >= 500) {
      request.log.warn(
        { code: appError.code, message: boundedMessage(appError.message) },
        'request failed upstream',
      );
    }
    return sendError(reply, appError);
  });
  // The API-key hook already answers unmatched requests in onRequest (before any body is read);
  // this handler is the same answer for an app built without that hook.
  app.setNotFoundHandler((request, reply) => sendError(reply, routeNotFound(request)));
}

/** The answer to a request that matches no route: 404 naming the method and path (without the query). */
export function routeNotFound(request: FastifyRequest): AppError {
  const path = request.url.split('?')[0];
  return new AppError('not_found', `No route ${request.method} ${path}`);
}
