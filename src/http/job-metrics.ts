import { Gauge, type Registry } from 'prom-client';
import type { JobQueue } from '../ports/job-queue.js';

/**
 * `alexandria_jobs{queue,state}`: jobs of each type in each state (waiting, active, delayed for a
 * retry, failed, completed and still remembered), read from the queue at scrape time — with Redis,
 * the whole deployment's, whichever process is scraped (docs/decisions/0046). When the queue cannot
 * be read (Redis down) the gauge keeps its last values; `alexandria_dependency_up` says why.
 */
export function installJobMetrics(
  registry: Registry,
  jobs: Pick<JobQueue, 'counts'>,
  types: readonly string[],
): void {
  new Gauge({
    name: 'alexandria_jobs',
    help: 'Background jobs by queue (job type) and state: waiting, active, delayed (waiting for a retry), failed, completed.',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      try {
        for (const { type, state, count } of await jobs.counts(types))
          this.set({ queue: type, state }, count);
      } catch {
        // Redis is out: the last known values stay.
      }
    },
  });
}
