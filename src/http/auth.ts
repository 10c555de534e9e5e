import type { FastifyInstance, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { AppError } from '../domain/errors.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { AuthService, Principal } from '../services/auth-service.js';
import { routeNotFound } from './error-handler.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every request to a route whose policy is `key`. */
    principal?: Principal;
  }
}

/** The key a request presents: our header, a configured alias header, or a Bearer token. */
export function presentedKey(request: FastifyRequest, aliasHeaders: readonly string[]): string | undefined {
  const own = request.headers['x-alexandria-api-key'];
  if (typeof own === 'string' && own.length > 0) return own.trim();
  for (const name of aliasHeaders) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.length > 0) return value.trim();
  }
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1]) return match[1].trim();
  }
  return undefined;
}

/** The principal of an authenticated request; throws when the route forgot to require a key. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('unauthorized', 'This route needs an API key');
  return request.principal;
}

/**
 * The bucket a client address is charged to. An IPv6 client usually holds a whole /64, so it is
 * counted per /64 (otherwise every request could come from a fresh address); IPv4-mapped IPv6 is
 * counted as its IPv4 address.
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return `ip:${ip}`;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return `ip:${address.toString()}`;
  const hextets = (address as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4);
  return `ip6:${hextets.join(':')}::/64`;
}

/**
 * Decides every request on the route the router matched (its `config.access`, src/http/access-policy.ts),
 * never on the URL text, so no spelling of a path (percent-encoding, dot segments, `//`, an
 * absolute-form target) changes what it needs. Runs in `onRequest`, before the body is read, so a
 * request refused here never has its upload buffered:
 *
 * - `key`: authenticates the key, then charges the key's token bucket (429 past it). A route whose
 *   policy is somehow missing is treated as `key`: refusing is the safe mistake.
 * - `signed-link`, `public`: no key; charged to the client address's budget.
 * - `probe`: no key, not charged.
 * - no route: 404 here, before any body is read; charged to the address budget. The answer is the
 *   same with or without a key, and the route list is public anyway (/openapi.json).
 *
 * A request without a valid key (none, a bad one, a keyless route, no route) is charged to its client
 * address when `unauthenticatedRateLimiter` is given: past that budget the answer is a 429 with
 * Retry-After, even where it would have been a 401 or a 404.
 */
export function installAuth(
  app: FastifyInstance,
  options: {
    auth: AuthService;
    rateLimiter: RateLimiter;
    unauthenticatedRateLimiter?: RateLimiter | undefined;
    aliasHeaders: readonly string[];
  },
): void {
  const addressLimiter = options.unauthenticatedRateLimiter;
  const chargeAddress = async (request: FastifyRequest): Promise<void> => {
    if (!addressLimiter) return;
    // This budget only sheds abuse: when its store (Redis) fails, the request goes on unmetered
    // rather than failing figure links and 401s with a 500.
    const decision = await addressLimiter.take(addressKey(request.ip)).catch((error: unknown) => {
      request.log.warn({ err: error }, 'per-address rate limit unavailable');
      return { allowed: true, remaining: 0, retryAfterSeconds: 0 };
    });
    if (decision.allowed) return;
    throw new AppError(
      'rate_limited',
      `Too many requests without a valid API key from this address; retry in ${decision.retryAfterSeconds} s`,
      { retryAfterSeconds: decision.retryAfterSeconds },
    );
  };

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) {
      await chargeAddress(request);
      throw routeNotFound(request);
    }
    const access = request.routeOptions.config.access ?? 'key';
    if (access === 'probe') return;
    if (access !== 'key') {
      await chargeAddress(request);
      return;
    }
    let principal: Principal;
    try {
      principal = await options.auth.authenticate(presentedKey(request, options.aliasHeaders));
    } catch (error) {
      if (error instanceof AppError && error.code === 'unauthorized') await chargeAddress(request);
      throw error;
    }
    request.principal = principal;
    const decision = await options.rateLimiter.take(principal.keyId);
    reply.header('x-ratelimit-remaining', String(decision.remaining));
    if (!decision.allowed) {
      throw new AppError('rate_limited', `Rate limit exceeded; retry in ${decision.retryAfterSeconds} s`, {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
  });
}
