import { MemoryJobQueue } from '../adapters/memory/memory-job-queue.js';
import type { Config } from '../config/load-config.js';
import type { Logger } from '../platform/logger.js';
import type { JobQueue } from '../ports/job-queue.js';

/**
 * The job queue: BullMQ on the shared Redis when REDIS_URL is set, else in this process; failed jobs
 * retried by the policy of ALEXANDRIA_JOB_* (docs/decisions/0022, 0046). BullMQ and its Redis client
 * are loaded only when REDIS_URL is set (decision 0061).
 */
export async function createJobQueue(config: Config, logger: Logger): Promise<JobQueue> {
  const settings = config.jobs;
  const onError = (error: unknown, job?: { type: string; id: string; attempt: number }) =>
    logger.warn({ err: error, job }, job ? 'a background job failed' : 'job queue error');
  const retry = {
    attempts: settings.attempts,
    retryDelayMs: settings.retryDelayMs,
    maxRetryDelayMs: settings.maxRetryDelayMs,
    outagePatienceMs: settings.outagePatienceMinutes * 60_000,
  };
  if (!config.storage.redisUrl) {
    return new MemoryJobQueue({ ...retry, onError });
  }
  const { BullMqJobQueue } = await import('../adapters/redis/bullmq-job-queue.js');
  return new BullMqJobQueue({
    url: config.storage.redisUrl,
    prefix: settings.prefix,
    lockDurationMs: settings.lockMs,
    ...retry,
    shutdownGraceMs: settings.shutdownGraceMs,
    onError,
  });
}
