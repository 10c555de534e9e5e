import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Paths redacted from every log line: keys and credentials never reach the logs. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers["x-alexandria-api-key"]',
  'req.headers.cookie',
  'req.headers["zotero-api-key"]',
  'req.headers["x-zotero-api-key"]',
  'headers.authorization',
  'apiKey',
  'key',
  '*.apiKey',
  '*.password',
  '*.secret',
  // node-postgres attaches the client (with the backend's cancel key) to a lost connection's error.
  'err.client',
  '*.secretKey',
];

/**
 * The one logger factory: structured JSON (pino). The CLI logs to stderr so that its stdout stays
 * machine-readable; the server logs to stdout.
 */
export function createLogger(
  options: {
    level?: string;
    destination?: DestinationStream | 'stderr' | 'stdout';
    extraRedactions?: string[];
  } = {},
): Logger {
  const destination =
    options.destination === 'stderr'
      ? pino.destination(2)
      : options.destination === 'stdout' || options.destination === undefined
        ? pino.destination(1)
        : options.destination;
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: [...redactedPaths, ...(options.extraRedactions ?? [])], censor: '[redacted]' },
      base: { service: 'alexandria' },
      serializers: {
        req: (request: {
          method?: string;
          url?: string;
          headers?: Record<string, unknown>;
          ip?: string;
        }) => ({
          method: request.method,
          url: redactUrl(request.url ?? ''),
          remoteAddress: request.ip,
        }),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

const secretParam = /^(.*(key|token|secret|password|credential).*)$/i;

/** A URL with the values of secret-looking query parameters (zotero_api_key, token, …) replaced. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (secretParam.test(name)) {
      params.set(name, '[redacted]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, queryStart)}?${params.toString()}` : url;
}
