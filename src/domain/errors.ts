/**
 * The one error type of Alexandria. Services throw `AppError` with a code from a closed set; the HTTP
 * boundary (and the MCP server) turn the code into a status and the OpenAI error envelope. Nothing
 * outside this file decides what a code means.
 */

export const errorCodes = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'rate_limited',
  'overloaded',
  'upstream_unavailable',
  'timeout',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/**
 * HTTP status for each code; `upstream_unavailable` is 502, `timeout` 504. `rate_limited` (429) is
 * the caller over its own share; `overloaded` (503) is the service busy with everyone's work
 * (docs/decisions/0042-heavy-work-budgets.md). Both carry `Retry-After`. `unavailable` (503) is a
 * dependency of this service — its database, Redis, the blob store — out for now; retry.
 */
export const statusOfCode: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  overloaded: 503,
  upstream_unavailable: 502,
  timeout: 504,
  unavailable: 503,
  internal: 500,
};

/** The OpenAI envelope's `type` for each code (clients such as openai-node read only the status). */
export const typeOfCode: Record<ErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  unauthorized: 'authentication_error',
  forbidden: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'conflict_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  unprocessable: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  overloaded: 'server_error',
  upstream_unavailable: 'upstream_error',
  timeout: 'timeout_error',
  unavailable: 'service_unavailable_error',
  internal: 'server_error',
};

export interface AppErrorOptions {
  /** The request parameter at fault, when there is one (`param` in the envelope). */
  param?: string;
  /** Seconds the client should wait before retrying (429 and some 503s). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return statusOfCode[this.code];
  }
}

/** Shorthands for the errors services throw most. */
export const invalid = (param: string, message: string) =>
  new AppError('invalid_request', message, { param });
export const notFound = (message: string, param?: string) =>
  new AppError('not_found', message, param === undefined ? {} : { param });

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * An error from an upstream HTTP call. It knows whether a retry can help: 408, 409, 429 and 5xx
 * are retryable, other 4xx are not.
 */
export class UpstreamError extends AppError {
  readonly source: string;
  readonly upstreamStatus: number | undefined;
  readonly retryable: boolean;

  constructor(
    source: string,
    message: string,
    options: AppErrorOptions & { upstreamStatus?: number; retryable?: boolean; code?: ErrorCode } = {},
  ) {
    super(options.code ?? 'upstream_unavailable', message, options);
    this.name = 'UpstreamError';
    this.source = source;
    this.upstreamStatus = options.upstreamStatus;
    this.retryable = options.retryable ?? isRetryableStatus(options.upstreamStatus);
  }
}

export function isRetryableStatus(status: number | undefined): boolean {
  if (status === undefined) return true; // network failure: worth another try
  return status === 408 || status === 409 || status === 429 || status >= 500;
}
