import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../domain/errors.js';
import { envelope, sendError, toAppError } from './error-handler.js';

/** What Node's HTTP parser refuses before a request exists, and how we answer it. */
interface ParserRefusal {
  status: number;
  code: ErrorCode;
  param: string | null;
  message: string;
}

const requestLinePattern = /^[A-Z]+ \S/;

/**
 * Maps a `clientError` (raised by Node's parser: over-long headers or request line, bad syntax, a
 * header timeout) to the answer to write. Node counts the request line against `maxHeaderSize`, so a
 * too-long url is also `HPE_HEADER_OVERFLOW`: when the request line alone does not fit, it is a 414.
 */
export function parserRefusal(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): ParserRefusal {
  const limitKb = Math.round(maxHeaderSize / 1024);
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': {
      const packet = error.rawPacket;
      const lineEnd = packet ? packet.indexOf('\r\n') : -1;
      const urlTooLong =
        packet !== undefined &&
        requestLinePattern.test(packet.subarray(0, 16).toString('latin1')) &&
        (lineEnd === -1 || lineEnd >= maxHeaderSize);
      return urlTooLong
        ? {
            status: 414,
            code: 'invalid_request',
            param: 'url',
            message: `The request url is longer than the server accepts (${limitKb} KB with the headers)`,
          }
        : {
            status: 431,
            code: 'invalid_request',
            param: 'headers',
            message: `The request headers are larger than the server accepts (${limitKb} KB in all)`,
          };
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return {
        status: 408,
        code: 'timeout',
        param: null,
        message: 'The request was not received in time',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        code: 'payload_too_large',
        param: 'body',
        message: 'The chunk extensions of the body are too large',
      };
    default:
      return {
        status: 400,
        code: 'invalid_request',
        param: null,
        message: 'Malformed HTTP request',
      };
  }
}

/**
 * Fastify's `clientErrorHandler`: answers parser refusals in the OpenAI envelope (Fastify's default
 * writes its own JSON shape). There is no request object yet, so the response is written to the
 * socket by hand, then the connection is closed: after a parse error the stream cannot be trusted.
 */
export function handleClientError(error: Error, socket: Socket): void {
  const parserError = error as NodeJS.ErrnoException & { rawPacket?: Buffer };
  // A reset or an already-closed socket has nobody to answer.
  if (parserError.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way on this socket cannot be followed by another status line.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const refusal = parserRefusal(parserError);
    const body = JSON.stringify({
      error: {
        ...envelope(new AppError(refusal.code, refusal.message)).error,
        param: refusal.param,
      },
    });
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy(error);
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route runs (a url that is not
 * valid percent-encoding, a path parameter over `maxParamLength`) goes through the one error boundary
 * instead of Fastify's own JSON shape.
 */
export function handleFrameworkError(
  error: Error,
  _request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const appError = toAppError(error);
  return sendError(
    reply,
    appError.param === undefined ? new AppError(appError.code, appError.message, { param: 'url' }) : appError,
  );
}
