import type { Config } from './load-config.js';

/**
 * What a process is for (ALEXANDRIA_ROLE; docs/decisions/0046):
 * - `all`: answers HTTP and runs background jobs (the default; a single-process deployment);
 * - `api`: answers HTTP only — runs no jobs and never embeds a whole document inline, leaving both
 *   to workers (needs REDIS_URL);
 * - `worker`: runs jobs; over HTTP it answers only its probes and metrics.
 */
export type ProcessRole = 'all' | 'api' | 'worker';

/** The role `serve` plays: ALEXANDRIA_ROLE, else `api` when the older ALEXANDRIA_RUN_JOBS=false, else `all`. */
export function serveRoleOf(config: Config): ProcessRole {
  return config.jobs.role ?? (config.jobs.run ? 'all' : 'api');
}
