import { maxHeaderSize } from 'node:http';
import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { AppServices } from '../app-services.js';
import type { Config } from '../config/load-config.js';
import type { ProcessRole } from '../config/role.js';
import type { Logger } from '../platform/logger.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { ReadinessProbe } from '../services/services.js';
import { installRoutePolicies } from './access-policy.js';
import { installAuth } from './auth.js';
import { handleClientError, handleFrameworkError } from './client-errors.js';
import { installErrorHandling } from './error-handler.js';
import { createMetrics, type HttpMetrics, installMetrics } from './metrics.js';
import { installMultipartGuard } from './multipart-guard.js';
import { installOpenApi } from './openapi.js';
import { installPublicOrigin } from './public-origin.js';
import { routeModules } from './routes/index.js';
import { type RouteModule, typed } from './routes/route-context.js';

export interface HttpDependencies {
  config: Config;
  logger: Logger;
  services: AppServices;
  rateLimiter: RateLimiter;
  /** Per client address, for requests without a valid key (see installAuth); none: no such limit. */
  unauthenticatedRateLimiter?: RateLimiter;
  probes: ReadinessProbe[];
  /** What this process is for; /readyz answers for it (default `all`). */
  role?: ProcessRole;
  /** The paper index's data version (PaperIndex.dataVersion): keys of cached search answers. */
  indexVersion: () => Promise<string>;
  version: string;
  metrics?: HttpMetrics;
  /** The route modules to register; default: every module (routes/index.ts). Tests pass others. */
  routeModules?: readonly RouteModule[];
}

const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Builds the HTTP app: logging with request ids, each request's public origin, CORS, the API-key hook
 * with rate limits, metrics, OpenAPI, the error boundary and every route module. Does not listen.
 * Rejects (RouteWithoutPolicyError) when any route, ours or a plugin's, declares no access policy.
 */
export async function buildApp(dependencies: HttpDependencies): Promise<FastifyInstance> {
  const { config } = dependencies;
  let requestCounter = 0;
  const app = Fastify({
    loggerInstance: dependencies.logger as FastifyBaseLogger,
    trustProxy: config.server.trustProxy,
    bodyLimit: config.server.jsonBodyLimitMb * 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      if (typeof incoming === 'string' && requestIdPattern.test(incoming)) return incoming;
      requestCounter = (requestCounter + 1) % 1_000_000_000;
      return `req_${Date.now().toString(36)}${requestCounter.toString(36)}`;
    },
    // A path parameter as long as a request line can be reaches its route's schema, which names it
    // in a 400, instead of the router's bare 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: maxHeaderSize },
    // What Node's parser and the router refuse before a route runs also gets the error envelope.
    clientErrorHandler: handleClientError,
    frameworkErrors: handleFrameworkError,
  });
  // A JSON content type on a request with no body (clients that set it on every call, DELETE
  // included) means no body, as it does without the header; the route's schema decides the rest.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  // First, so that every route registered after it, in any scope, must declare who may call it.
  const { withPolicy } = installRoutePolicies(app);
  app.setValidatorCompiler(validatorCompiler);
  // Responses are typed at compile time; serialising with plain JSON keeps the hot path fast.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

  // Hooks on every request are callback-style where they do not wait: an async hook costs a promise
  // and a microtask turn per request (decision 0053).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  installErrorHandling(app);
  installMultipartGuard(app);
  // Before any route: every request's links (figures, OpenAPI servers, CSP) use its public origin.
  installPublicOrigin(app, config);

  const origins = config.server.corsOrigins;
  // CORS answers preflights in its own onRequest hook, before ours; its catch-all OPTIONS route only
  // lets the router accept them. A preflight carries no credentials by design: public.
  await withPolicy('public', () =>
    app.register(cors, {
      origin: origins.includes('*') ? true : origins,
      exposedHeaders: [
        'x-request-id',
        'retry-after',
        'x-total-count',
        'x-next-offset',
        'x-alexandria-sources',
        'x-alexandria-hint',
        'x-ratelimit-remaining',
        'x-image-width',
        'x-image-height',
      ],
    }),
  );

  const metrics = dependencies.metrics ?? createMetrics();
  installMetrics(app, metrics);
  installAuth(app, {
    auth: dependencies.services.auth,
    rateLimiter: dependencies.rateLimiter,
    unauthenticatedRateLimiter: dependencies.unauthenticatedRateLimiter,
    aliasHeaders: config.auth.apiKeyHeaders,
  });

  // The docs (Swagger UI's routes) and the document describe the API to anyone: public.
  await withPolicy('public', () => installOpenApi(app, { version: dependencies.version }));

  const context = {
    services: dependencies.services,
    config,
    probes: dependencies.probes,
    role: dependencies.role,
    metrics,
    indexVersion: dependencies.indexVersion,
    withPolicy,
  };
  for (const register of dependencies.routeModules ?? routeModules) await register(typed(app), context);
  return app;
}
