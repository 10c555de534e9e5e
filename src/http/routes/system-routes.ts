import { z } from 'zod';
import { readinessOf } from '../readiness.js';
import type { RouteModule } from './route-context.js';

/**
 * No API key, and not charged to the keyless budget: probes and scrapers poll from one address all
 * day. The OpenAPI document gets `security: []` from the policy (src/http/openapi.ts).
 */
const probe = { access: 'probe' } as const;
const open = { tags: ['system'] };

const readinessSchema = z.object({
  status: z
    .enum(['ready', 'degraded', 'unavailable'])
    .describe('`degraded`: what this role serves works, something else (named in `reason`) does not.'),
  role: z.enum(['all', 'api', 'worker']).describe('What this process is for (ALEXANDRIA_ROLE).'),
  checks: z.record(z.string(), z.string()).describe('Each dependency probe: "ok" or what failed.'),
  reason: z.string().optional().describe('Which probes failed and what they are needed for.'),
});

/** Liveness, readiness (for the process's role) and Prometheus metrics; no API key needed. */
export const systemRoutes: RouteModule = (app, context) => {
  for (const path of ['/livez', '/healthz']) {
    app.get(
      path,
      {
        config: probe,
        schema: {
          ...open,
          summary: 'Liveness',
          description:
            'Answers 200 while the process serves requests; checks no dependency (restart the process only when this fails).',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );
  }

  app.get(
    '/readyz',
    {
      config: probe,
      schema: {
        ...open,
        summary: 'Readiness',
        description:
          "Probes the dependencies and answers for this process's role: 503 only when what the role needs fails (reads for a replica, jobs for a worker); 200 `degraded`, with the reason, when only something else does.",
        response: {
          200: readinessSchema.describe('Ready, or degraded (see `reason`).'),
          503: readinessSchema.describe('What this role needs failed; `reason` says which.'),
        },
      },
    },
    async (_request, reply) => {
      const readiness = await readinessOf(context.probes, context.role ?? 'all');
      return reply.code(readiness.status === 'unavailable' ? 503 : 200).send(readiness);
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
