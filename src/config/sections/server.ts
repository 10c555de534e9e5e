import { z } from 'zod';
import { booleanText, envVar, listText, positiveInt, urlText } from '../env-var.js';

/** HTTP server, logging and process settings. */
export const serverSection = {
  host: envVar('ALEXANDRIA_HOST', z.string().min(1), {
    default: '0.0.0.0',
    description: 'Address the HTTP server binds to.',
  }),
  port: envVar('ALEXANDRIA_PORT', z.coerce.number().int().min(0).max(65535), {
    default: '8080',
    description: 'TCP port of the HTTP server (0 picks a free port).',
  }),
  publicUrl: envVar('ALEXANDRIA_PUBLIC_URL', urlText.optional(), {
    description:
      "Absolute base URL clients reach the service at, used in figure links, the web page's CSP and OpenAPI servers. Default: per request, its Host (behind a trusted proxy, the forwarded host and scheme). Set an https URL behind a TLS proxy for GPT Actions.",
  }),
  logLevel: envVar(
    'ALEXANDRIA_LOG_LEVEL',
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    { default: 'info', description: 'Log level of the JSON logs (stderr for the CLI, stdout for serve).' },
  ),
  trustProxy: envVar('ALEXANDRIA_TRUST_PROXY', booleanText, {
    default: 'false',
    description:
      'Trust proxy headers from the peer: X-Forwarded-For (client address), and Forwarded or X-Forwarded-Host/-Proto (the public URL when ALEXANDRIA_PUBLIC_URL is unset). Set only behind a reverse proxy that sets them.',
  }),
  corsOrigins: envVar('ALEXANDRIA_CORS_ORIGINS', listText, {
    default: '*',
    description: 'Comma-separated origins allowed by CORS; * allows any.',
  }),
  shutdownTimeoutMs: envVar('ALEXANDRIA_SHUTDOWN_TIMEOUT_MS', positiveInt, {
    default: '10000',
    description: 'How long a graceful shutdown waits for in-flight requests before exiting.',
  }),
  metricsPerTenant: envVar('ALEXANDRIA_METRICS_PER_TENANT', booleanText, {
    default: 'true',
    description:
      'Label the storage figures on /metrics by tenant id (alexandria_storage_bytes{tenant=…}). /metrics needs no API key: set false where it is reachable by anyone who should not learn tenant ids, and the figures are summed over all tenants (tenant="all").',
  }),
  jsonBodyLimitMb: envVar('ALEXANDRIA_JSON_BODY_LIMIT_MB', positiveInt, {
    default: '2',
    description: 'Largest JSON request body, in MB.',
  }),
};
