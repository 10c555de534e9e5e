import type { Job, Queue } from 'bullmq';
import type { JobCount, JobInfo, JobPayload } from '../../ports/job-queue.js';

/** What a BullMQ job carries: the payload and its lane. */
export interface StoredJob {
  payload: JobPayload;
  lane: string;
  /** The de-duplication id (BullMQ's own job id is unique per run). */
  id: string;
  /** Since when the job has been put back for dependency outages, and how often in a row. */
  outageSince?: number;
  outages?: number;
}

/** The queue's jobs by state, `waiting` including those waiting their turn by priority. */
export async function countJobs(queue: Queue, type: string): Promise<JobCount[]> {
  const raw = await queue.getJobCounts(
    'waiting',
    'prioritized',
    'waiting-children',
    'active',
    'delayed',
    'failed',
    'completed',
  );
  const of = (state: string) => raw[state] ?? 0;
  return [
    { type, state: 'waiting', count: of('waiting') + of('prioritized') + of('waiting-children') },
    { type, state: 'active', count: of('active') },
    { type, state: 'delayed', count: of('delayed') },
    { type, state: 'failed', count: of('failed') },
    { type, state: 'completed', count: of('completed') },
  ];
}

/** Up to `limit` failed jobs, most recent first. */
export async function failedJobs(queue: Queue, limit: number): Promise<JobInfo[]> {
  const jobs = (await queue.getFailed(0, Math.max(0, limit - 1))) as Array<Job<StoredJob> | undefined>;
  return jobs.flatMap((job) =>
    job
      ? [
          {
            id: job.data.id,
            lane: job.data.lane,
            state: 'failed' as const,
            payload: job.data.payload,
            starts: job.attemptsStarted,
            ...(job.failedReason ? { error: job.failedReason } : {}),
            ...(job.finishedOn ? { finishedAt: job.finishedOn } : {}),
          },
        ]
      : [],
  );
}

/** Moves failed jobs (only the one with de-duplication id `id` when given) back to the queue. */
export async function retryFailedJobs(queue: Queue, id?: string): Promise<number> {
  let retried = 0;
  let start = 0;
  for (;;) {
    const jobs = (await queue.getFailed(start, start + 99)) as Array<Job<StoredJob> | undefined>;
    if (jobs.length === 0) return retried;
    let kept = 0;
    for (const job of jobs) {
      if (!job || (id !== undefined && job.data.id !== id)) {
        kept += 1;
        continue;
      }
      await job.retry('failed');
      retried += 1;
    }
    // Retried jobs left the failed list; the ones kept are skipped next time.
    start += kept;
  }
}
