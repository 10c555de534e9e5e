import { AppError } from '../../domain/errors.js';
import type { RouteModule } from './route-context.js';

/** Liveness, readiness (every storage probe) and Prometheus metrics; no API key needed. */
export const systemRoutes: RouteModule = (app, context) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const checks: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      context.probes.map(async (probe) => {
        try {
          await probe.check();
          checks[probe.name] = 'ok';
        } catch (error) {
          ready = false;
          checks[probe.name] = error instanceof AppError ? error.message : 'unavailable';
        }
      }),
    );
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(context.metrics.registry.contentType);
    return context.metrics.registry.metrics();
  });
};
