import type { FastifyInstance } from 'fastify';
import type { Container } from '../main.js';
import { packageVersion } from '../platform/version.js';
import { knownJobTypes } from '../services/jobs/job-types.js';
import { buildApp, type HttpDependencies } from './app.js';
import { installBacklogMetrics } from './backlog-metrics.js';
import { installDependencyMetrics } from './dependency-metrics.js';
import { installIndexMetrics } from './index-metrics.js';
import { installJobMetrics } from './job-metrics.js';
import { createMetrics } from './metrics.js';
import { installStorageMetrics } from './storage-metrics.js';
import { installWorkMetrics } from './work-metrics.js';

/** Builds the app from a container; `overrides` replace dependencies (tests: other route modules). */
export function createHttpApp(
  container: Container,
  overrides: Partial<HttpDependencies> = {},
): Promise<FastifyInstance> {
  const metrics = createMetrics();
  installIndexMetrics(metrics.registry, container.stores.index);
  installBacklogMetrics(metrics.registry, container.stores.index, {
    vectorModel: container.recordVectorModel,
  });
  installWorkMetrics(metrics.registry, container.work);
  installDependencyMetrics(metrics.registry, container.health, container.dependencies);
  installJobMetrics(metrics.registry, container.jobs, knownJobTypes);
  installStorageMetrics(metrics.registry, container.services.storage, {
    perTenant: container.config.server.metricsPerTenant,
  });
  return buildApp({
    config: container.config,
    logger: container.logger,
    services: container.services,
    rateLimiter: container.rateLimiter,
    unauthenticatedRateLimiter: container.unauthenticatedRateLimiter,
    probes: container.probes,
    role: container.role,
    indexVersion: () => container.stores.index.dataVersion(),
    metrics,
    version: packageVersion(),
    ...overrides,
  });
}

/**
 * Listens, and shuts down gracefully on SIGINT/SIGTERM: stop accepting, let in-flight requests
 * finish (bounded by the shutdown timeout), close adapters, exit.
 */
export async function serve(
  container: Container,
  overrides: Partial<HttpDependencies> = {},
): Promise<{ app: FastifyInstance; address: string }> {
  const app = await createHttpApp(container, overrides);
  const address = await app.listen({
    host: container.config.server.host,
    port: container.config.server.port,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    container.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      container.logger.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, container.config.server.shutdownTimeoutMs);
    timer.unref();
    try {
      await app.close();
      await container.close();
    } finally {
      clearTimeout(timer);
      process.exitCode = 0;
    }
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return { app, address };
}
