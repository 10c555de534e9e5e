import type { Redis } from 'ioredis';
import type { ProcessRole } from '../config/role.js';
import { AppError } from '../domain/errors.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { PaperIndex } from '../ports/paper-index.js';
import type { ProjectStore } from '../ports/project-store.js';
import { parsePdfJob } from '../services/jobs/pdf-parse-job.js';
import type { ReadinessProbe } from '../services/services.js';

/**
 * The checks behind /readyz, each with what fails while it does (docs/decisions/0046): the project
 * store (keys, projects) is needed for everything, the paper index for reads and jobs, the blob
 * store for writes and jobs, Redis for the shared queue (writes that wait for a parse, jobs), and —
 * on a replica that leaves jobs to workers — a running worker for writes.
 */
export function readinessProbes(
  stores: {
    projects: ProjectStore;
    blobs: BlobStore;
    index: PaperIndex;
    redis: Redis | undefined;
    jobs: JobQueue;
  },
  role: ProcessRole,
): ReadinessProbe[] {
  const { projects, blobs, index, redis, jobs } = stores;
  const probes: ReadinessProbe[] = [
    { name: 'project_store', check: () => projects.ping() },
    { name: 'paper_index', check: () => index.ping(), neededFor: ['reads', 'jobs'] },
    { name: 'blob_store', check: () => blobs.ping(), neededFor: ['writes', 'jobs'] },
  ];
  if (redis) {
    probes.push({
      name: 'redis',
      check: async () => void (await redis.ping()),
      neededFor: ['writes', 'jobs'],
    });
  }
  if (jobs.shared && role === 'api') {
    probes.push({
      name: 'job_workers',
      neededFor: ['writes'],
      check: async () => {
        if ((await jobs.workerCount(parsePdfJob)) === 0) {
          throw new AppError('unavailable', 'no worker is running jobs: uploads wait until one starts');
        }
      },
    });
  }
  return probes;
}
