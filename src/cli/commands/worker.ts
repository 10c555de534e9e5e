import type { Command } from 'commander';
import { secretValues } from '../../config/load-config.js';
import { createContainer } from '../../main.js';
import { createLogger } from '../../platform/logger.js';
import { CliError } from '../cli-error.js';
import { cliConfig } from '../context.js';
import { output } from '../output.js';

/**
 * `alexandria worker`: runs the background jobs of a scaled-out deployment (parsing the PDFs
 * add_to_project receives, while the replica waits; embedding filed PDFs' passages) from the queue
 * in Redis, until SIGTERM or SIGINT. Then it stops taking jobs, lets the
 * running ones finish for ALEXANDRIA_JOB_SHUTDOWN_GRACE_MS and puts the rest back in the queue for
 * another worker. A worker killed outright loses nothing either: its jobs are taken over once their
 * lock expires (ALEXANDRIA_JOB_LOCK_MS).
 */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('Run queued background jobs (parsing and embedding PDFs) from Redis until stopped')
    .action(async () => {
      const config = cliConfig();
      if (!config.storage.redisUrl) {
        throw new CliError(
          'alexandria worker takes its jobs from Redis: set REDIS_URL (the same as the replicas). Without REDIS_URL, `alexandria serve` runs its jobs itself.',
          2,
        );
      }
      const logger = createLogger({
        level: config.server.logLevel,
        destination: 'stdout',
        secrets: secretValues(config),
      });
      const container = await createContainer(config, logger, { runJobs: true, role: 'worker' });
      const signal = await new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
        output.error(
          `Alexandria worker is running jobs from ${config.jobs.prefix} (concurrency ${config.jobs.concurrency}); stop it with SIGTERM`,
        );
      });
      logger.info({ signal }, 'worker stopping: running jobs finish or go back to the queue');
      const timer = setTimeout(() => {
        logger.error('worker shutdown timed out; exiting');
        process.exit(1);
      }, config.jobs.shutdownGraceMs + config.server.shutdownTimeoutMs);
      timer.unref();
      try {
        await container.close();
      } finally {
        clearTimeout(timer);
      }
    });
}
