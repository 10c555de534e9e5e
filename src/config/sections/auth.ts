import { z } from 'zod';
import { envVar, listText, nonNegativeInt, positiveInt } from '../env-var.js';

const tenantKeyPairs = listText.pipe(
  z.array(
    z
      .string()
      .regex(
        /^[A-Za-z0-9_.-]{1,64}:[A-Za-z0-9_.~+/=-]{16,256}$/,
        'each entry must be tenant:key (tenant [A-Za-z0-9_.-], key at least 16 characters)',
      )
      .transform((pair) => {
        const at = pair.indexOf(':');
        return { tenant: pair.slice(0, at), key: pair.slice(at + 1) };
      }),
  ),
);

/** API keys, extra auth headers and rate limits. */
export const authSection = {
  apiKeys: envVar('ALEXANDRIA_API_KEYS', tenantKeyPairs, {
    default: '',
    secret: true,
    description:
      'Comma-separated tenant:key pairs accepted at start (for automation). When empty and no key exists, the first start creates an admin key and prints it.',
  }),
  apiKeyHeaders: envVar(
    'ALEXANDRIA_API_KEY_HEADERS',
    listText.transform((names) => names.map((name) => name.toLowerCase())),
    {
      default: '',
      description:
        'Extra header names that carry the API key (e.g. x-scholarai-api-key), besides x-alexandria-api-key and Authorization: Bearer.',
    },
  ),
  rateLimitPerMinute: envVar('ALEXANDRIA_RATE_LIMIT_PER_MINUTE', positiveInt, {
    default: '600',
    description: 'Sustained requests per minute allowed per API key (token-bucket refill rate).',
  }),
  rateLimitBurst: envVar('ALEXANDRIA_RATE_LIMIT_BURST', positiveInt, {
    default: '120',
    description: 'Requests an API key may send at once before the refill rate applies (bucket size).',
  }),
  unauthenticatedRateLimitPerMinute: envVar(
    'ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE',
    nonNegativeInt,
    {
      default: '300',
      description:
        'Sustained requests per minute allowed per client address for requests without a valid API key (missing or bad keys, figure links, docs, web UI); /healthz, /readyz and /metrics are exempt. The address honours ALEXANDRIA_TRUST_PROXY; IPv6 clients are counted per /64. 0 turns the limit off.',
    },
  ),
  unauthenticatedRateLimitBurst: envVar('ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_BURST', positiveInt, {
    default: '120',
    description: 'Requests without a valid API key one client address may send at once (bucket size).',
  }),
  signingSecret: envVar('ALEXANDRIA_SIGNING_SECRET', z.string().min(32).optional(), {
    secret: true,
    description:
      'Secret for signed figure URLs and stored Zotero keys (≥ 32 characters). Default: a random secret generated once into the project store (PostgreSQL when DATABASE_URL is set, so every replica shares it; a <data dir>/secret left by an older release is taken over).',
  }),
};
