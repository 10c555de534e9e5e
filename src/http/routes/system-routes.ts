import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import type { RouteModule } from './route-context.js';

/**
 * No API key, and not charged to the keyless budget: probes and scrapers poll from one address all
 * day. The OpenAPI document gets `security: []` from the policy (src/http/openapi.ts).
 */
const probe = { access: 'probe' } as const;
const open = { tags: ['system'] };

const readinessSchema = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), z.string()).describe('Each storage probe: "ok" or what failed.'),
});

/** Liveness, readiness (every storage probe) and Prometheus metrics; no API key needed. */
export const systemRoutes: RouteModule = (app, context) => {
  app.get(
    '/healthz',
    {
      config: probe,
      schema: {
        ...open,
        summary: 'Liveness',
        description: 'Answers 200 while the process serves requests; checks nothing else.',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: probe,
      schema: {
        ...open,
        summary: 'Readiness',
        description:
          'Probes every store (database, blobs, and Redis when configured): 200 when all answer, 503 otherwise.',
        response: {
          200: readinessSchema.describe('Every probe answered.'),
          503: readinessSchema.describe('A probe failed; `checks` says which.'),
        },
      },
    },
    async (_request, reply) => {
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
      const status = ready ? ('ready' as const) : ('unavailable' as const);
      return reply.code(ready ? 200 : 503).send({ status, checks });
    },
  );

  app.get(
    '/metrics',
    {
      config: probe,
      schema: {
        ...open,
        summary: 'Prometheus metrics',
        description:
          'Request counts and durations, upstream source calls, storage (stored PDF bytes per tenant, unless ALEXANDRIA_METRICS_PER_TENANT=false; blob store bytes per area) and process metrics, in the Prometheus text format.',
        response: {
          200: {
            description: 'Prometheus text exposition format.',
            content: { 'text/plain': { schema: z.string() } },
          },
        },
      },
    },
    async (_request, reply) => {
      reply.type(context.metrics.registry.contentType);
      return context.metrics.registry.metrics();
    },
  );
};
