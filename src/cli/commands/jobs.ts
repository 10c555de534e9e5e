import type { Command } from 'commander';
import { createJobQueue } from '../../compose/job-queue.js';
import type { JobQueue } from '../../ports/job-queue.js';
import { knownJobTypes } from '../../services/jobs/job-types.js';
import { CliError } from '../cli-error.js';
import { cliConfig, cliLogger } from '../context.js';
import { output } from '../output.js';

/** Runs `work` on the deployment's job queue (Redis), closed afterwards; only the queue is opened. */
async function withQueue<T>(work: (jobs: JobQueue) => Promise<T>): Promise<T> {
  const config = cliConfig();
  if (!config.storage.redisUrl) {
    throw new CliError(
      'Without REDIS_URL jobs run inside `alexandria serve` and are not kept: there is no queue to look at. Set REDIS_URL (the same as the replicas).',
      2,
    );
  }
  const jobs = await createJobQueue(config, cliLogger(config));
  try {
    return await work(jobs);
  } finally {
    await jobs.close();
  }
}

/** The types an option names (all known types when none). */
function typesOf(type: string | undefined): readonly string[] {
  if (type === undefined) return knownJobTypes;
  if (!knownJobTypes.includes(type)) {
    throw new CliError(`Unknown job type "${type}"; known: ${knownJobTypes.join(', ')}.`, 2);
  }
  return [type];
}

/**
 * `alexandria jobs`: the background job queue of a scaled-out deployment (docs/decisions/0046):
 * how many jobs wait, run, wait for a retry, failed or completed per type; the failed ones with
 * their last error; and `retry` to queue failed jobs again (after fixing what made them fail).
 */
export function registerJobs(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('Show the background job queue (Redis): counts by state, failed jobs; retry failed jobs');

  jobs
    .command('list', { isDefault: true })
    .description(
      'Jobs of each type by state: waiting, active, delayed (waiting for a retry), failed, completed',
    )
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const counts = await withQueue((queue) => queue.counts(knownJobTypes));
      if (options.json) {
        output.json(counts);
        return;
      }
      const rows = knownJobTypes.map((type) => ({
        queue: type,
        ...Object.fromEntries(
          counts.filter((count) => count.type === type).map((count) => [count.state, String(count.count)]),
        ),
      }));
      output.table(rows);
    });

  jobs
    .command('failed')
    .description('Failed jobs, most recent first, with their last error')
    .option('--type <type>', `only this job type (${knownJobTypes.join(', ')})`)
    .option('--limit <n>', 'at most this many per type', '20')
    .option('--json', 'print JSON')
    .action(async (options: { type?: string; limit: string; json?: boolean }) => {
      const limit = Number.parseInt(options.limit, 10);
      if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit: give a whole number ≥ 1', 2);
      const types = typesOf(options.type);
      const failed = await withQueue(async (queue) =>
        (
          await Promise.all(
            types.map(async (type) => (await queue.failed(type, limit)).map((job) => ({ type, ...job }))),
          )
        ).flat(),
      );
      if (options.json) output.json(failed);
      else if (failed.length === 0) output.error('No failed jobs.');
      else
        output.table(
          failed.map((job) => ({
            type: job.type,
            id: job.id,
            lane: job.lane,
            runs: String(job.starts),
            failed: job.finishedAt ? new Date(job.finishedAt).toISOString() : '',
            error: job.error ?? '',
          })),
        );
    });

  jobs
    .command('retry')
    .description('Queue failed jobs again (all, or of one type, or one job by id)')
    .option('--type <type>', `only this job type (${knownJobTypes.join(', ')})`)
    .option('--id <id>', 'only the job with this id (needs --type)')
    .action(async (options: { type?: string; id?: string }) => {
      if (options.id !== undefined && options.type === undefined) throw new CliError('--id needs --type', 2);
      const types = typesOf(options.type);
      const retried = await withQueue(async (queue) => {
        let total = 0;
        for (const type of types) total += await queue.retryFailed(type, options.id);
        return total;
      });
      output.line(`Queued ${retried} failed job${retried === 1 ? '' : 's'} again.`);
    });
}
