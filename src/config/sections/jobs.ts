import { z } from 'zod';
import { booleanText, envVar, nonNegativeInt, positiveInt } from '../env-var.js';

/**
 * Background jobs (parsing the PDFs add_to_project receives, embedding a filed PDF's passages): in this process on the embedded default, in
 * Redis shared by replicas and `alexandria worker` processes when REDIS_URL is set
 * (docs/decisions/0022-jobs-and-workers.md).
 */
export const jobsSection = {
  run: envVar('ALEXANDRIA_RUN_JOBS', booleanText, {
    default: 'true',
    description:
      'Whether `serve` also runs background jobs. With REDIS_URL, set false on API-only replicas when `alexandria worker` processes run them; without REDIS_URL jobs always run in the process that queued them.',
  }),
  concurrency: envVar('ALEXANDRIA_JOB_CONCURRENCY', positiveInt, {
    default: '4',
    description:
      'Jobs of one kind a process runs at once (for PDF parse jobs, ALEXANDRIA_PDF_WORKER_THREADS instead). The heavy work inside (PDF parsing, embedding) is still metered by its own fair queues.',
  }),
  attempts: envVar('ALEXANDRIA_JOB_ATTEMPTS', positiveInt, {
    default: '3',
    description: 'Runs of a job whose work fails before it is given up (retries wait 1 s, 2 s, …).',
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
