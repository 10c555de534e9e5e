import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppServices } from '../../app-services.js';
import type { Config } from '../../config/load-config.js';
import type { ProcessRole } from '../../config/role.js';
import type { ReadinessProbe } from '../../services/services.js';
import type { WithPolicy } from '../access-policy.js';
import type { HttpMetrics } from '../metrics.js';

/**
 * What every route module receives. The base URL a request reached the service at is per request:
 * `request.publicUrl` (src/http/public-origin.ts).
 */
export interface RouteContext {
  services: AppServices;
  config: Config;
  probes: ReadinessProbe[];
  /** What this process is for; /readyz answers for it (default `all`). */
  role?: ProcessRole;
  metrics: HttpMetrics;
  /** The paper index's data version (PaperIndex.dataVersion): keys of cached search answers. */
  indexVersion: () => Promise<string>;
  /**
   * Registers a plugin's routes (which cannot carry our `config.access`) under one access policy.
   * Our own routes declare theirs in their options: `config: { access: 'key' }`.
   */
  withPolicy: WithPolicy;
}

/** A route module: registers its routes on the typed app. */
export type RouteModule = (app: ReturnType<typeof typed>, context: RouteContext) => void | Promise<void>;

export function typed(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
