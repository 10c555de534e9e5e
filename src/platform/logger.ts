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
    /**
     * Secret values (upstream API keys, passwords in URLs) replaced by `[redacted]` wherever they
     * appear in a line, however they got there (an error message quoting a URL, say).
     */
    secrets?: readonly string[];
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
        url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
      },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...secretScrubbing(options.secrets ?? []),
    },
    destination,
  );
}

/**
 * The pino hook that replaces every secret value in a written line, as written and as it would be
 * percent-encoded in a URL. Values shorter than 8 characters are not scrubbed (they would match
 * ordinary words).
 */
function secretScrubbing(secrets: readonly string[]) {
  const forms = [...new Set(secrets.filter((secret) => secret.length >= 8))].flatMap((secret) => [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
  ]);
  if (forms.length === 0) return {};
  return {
    hooks: {
      streamWrite: (line: string) => {
        let scrubbed = line;
        for (const form of forms)
          if (scrubbed.includes(form)) scrubbed = scrubbed.replaceAll(form, '[redacted]');
        return scrubbed;
      },
    },
  };
}

const secretParam = /^(.*(key|token|secret|password|credential).*)$/i;

/**
 * A URL without its secret-looking query parameters (api_key, token, …): what a cache keys a
 * response by, so that no key ends up in a cache key (decision 0042).
 */
export function withoutSecretParams(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return url;
  const params = new URLSearchParams(url.slice(queryStart + 1));
  const names = [...params.keys()].filter((name) => secretParam.test(name));
  if (names.length === 0) return url;
  for (const name of names) params.delete(name);
  const query = params.toString();
  return query ? `${url.slice(0, queryStart)}?${query}` : url.slice(0, queryStart);
}

/** The values of a URL's secret-looking query parameters (to scrub them from messages). */
export function secretParamValues(url: string): string[] {
  const queryStart = url.indexOf('?');
  if (queryStart < 0) return [];
  const params = new URLSearchParams(url.slice(queryStart + 1));
  return [...params.entries()].filter(([name]) => secretParam.test(name)).map(([, value]) => value);
}

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
