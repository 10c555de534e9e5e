import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { AuthService, Principal } from '../services/auth-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on every /api/* and /mcp request. */
    principal?: Principal;
  }
}

/** Paths that need an API key: the whole API and the MCP endpoint. */
export function requiresKey(url: string): boolean {
  return (
    url.startsWith('/api/') ||
    url === '/api' ||
    url === '/mcp' ||
    url.startsWith('/mcp?') ||
    url.startsWith('/mcp/')
  );
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
 * Authenticates every keyed request, then charges its key's token bucket. Runs in `onRequest`, before
 * body parsing, so an unauthenticated upload is refused before it is read.
 */
export function installAuth(
  app: FastifyInstance,
  options: { auth: AuthService; rateLimiter: RateLimiter; aliasHeaders: readonly string[] },
): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' || !requiresKey(request.url)) return;
    const principal = await options.auth.authenticate(presentedKey(request, options.aliasHeaders));
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
