import { z } from 'zod';
import { booleanText, envVar, nonNegativeInt, positiveInt } from '../env-var.js';

/**
 * Background jobs (parsing the PDFs add_to_project receives, embedding a filed PDF's passages): in this process on the embedded default, in
 * Redis shared by replicas and `alexandria worker` processes when REDIS_URL is set
 * (docs/decisions/0022-jobs-and-workers.md).
 */
export const jobsSection = {
  role: envVar('ALEXANDRIA_ROLE', z.enum(['all', 'api', 'worker']).optional(), {
    description:
      'What `serve` is for (docs/decisions/0046): `all` (default: answers HTTP and runs background jobs), `api` (answers HTTP only: runs no jobs and never embeds a whole document inline; needs REDIS_URL and `alexandria worker` processes), or `worker` (runs jobs; its HTTP port answers only /livez, /readyz and /metrics). `alexandria worker` is always `worker`. /readyz answers for the role.',
  }),
  run: envVar('ALEXANDRIA_RUN_JOBS', booleanText, {
    default: 'true',
    description:
      'Older switch, kept as an alias: `false` means ALEXANDRIA_ROLE=api when ALEXANDRIA_ROLE is unset. Without REDIS_URL jobs always run in the process that queued them.',
  }),
  concurrency: envVar('ALEXANDRIA_JOB_CONCURRENCY', positiveInt, {
    default: '4',
    description:
      'Jobs of one kind a process runs at once (for PDF parse jobs, ALEXANDRIA_PDF_WORKER_THREADS instead). The heavy work inside (PDF parsing, embedding) is still metered by its own fair queues.',
  }),
  attempts: envVar('ALEXANDRIA_JOB_ATTEMPTS', positiveInt, {
    default: '8',
    description:
      'Runs of a job whose work fails for a reason of its own before it counts as failed (retries wait ALEXANDRIA_JOB_RETRY_DELAY_MS, doubled each time up to ALEXANDRIA_JOB_RETRY_MAX_DELAY_MS: 2 s … 128 s, about four minutes in all). A failure because PostgreSQL, Redis or the blob store is out spends no attempt: the job waits 1 s, 2 s, … up to 30 s and runs again, for up to ALEXANDRIA_JOB_OUTAGE_PATIENCE_MINUTES. Failed jobs: `alexandria jobs`.',
  }),
  retryDelayMs: envVar('ALEXANDRIA_JOB_RETRY_DELAY_MS', positiveInt, {
    default: '2000',
    description:
      'Wait before the first retry of a failed job, in milliseconds; doubled for each further retry.',
  }),
  maxRetryDelayMs: envVar('ALEXANDRIA_JOB_RETRY_MAX_DELAY_MS', positiveInt, {
    default: '300000',
    description: 'Longest wait between two runs of a failing job, in milliseconds.',
  }),
  outagePatienceMinutes: envVar('ALEXANDRIA_JOB_OUTAGE_PATIENCE_MINUTES', positiveInt, {
    default: '60',
    description:
      'How long a job keeps waiting out outages of PostgreSQL or the blob store (retrying without spending attempts) before their failures count as its own, in minutes.',
  }),
  lockMs: envVar('ALEXANDRIA_JOB_LOCK_MS', positiveInt, {
    default: '30000',
    description:
      'With REDIS_URL: how long a worker holds a running job without renewing it (it renews at half that). A job whose worker died is taken over by another worker one to two of these later.',
  }),
  shutdownGraceMs: envVar('ALEXANDRIA_JOB_SHUTDOWN_GRACE_MS', nonNegativeInt, {
    default: '5000',
    description:
      'With REDIS_URL: on SIGTERM, how long running jobs may take to finish before they are put back in the queue for another worker, in milliseconds. Keep it below ALEXANDRIA_SHUTDOWN_TIMEOUT_MS.',
  }),
  prefix: envVar(
    'ALEXANDRIA_JOB_PREFIX',
    z.string().regex(/^[A-Za-z0-9:_.-]{1,100}$/, 'expected letters, digits, : _ . -'),
    {
      default: 'alexandria:jobs',
      description:
        'With REDIS_URL: the Redis key prefix of the job queue; every replica and worker of one deployment uses the same.',
    },
  ),
};
