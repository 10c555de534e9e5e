import type { JobCount, JobQueue } from '../../ports/job-queue.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import type { ProjectStore, TenantStorage } from '../../ports/project-store.js';
import { type BacklogEstimate, VectorBacklogTrend } from '../search/vector-backlog.js';

/**
 * What `alexandria status` shows (decision 0051): the figures /metrics has, read once from the
 * deployment's stores rather than from a running process.
 */
export interface DeploymentStatus {
  index: { records: number };
  /** The record-vector backlog of `model`; absent when record vectors are off. */
  vectors?: BacklogEstimate & { model: string; stored: number; sampledSeconds: number };
  /** Job counts per queue and state; absent without a shared queue (jobs then live inside `serve`). */
  jobs?: JobCount[];
  /** PDFs stored per tenant. */
  storage: TenantStorage[];
}

export interface DeploymentStatusSources {
  index: Pick<PaperIndex, 'stats'>;
  projects: Pick<ProjectStore, 'storageByTenant'>;
  /** The shared job queue (Redis) and the job types to count. */
  jobs?: { queue: Pick<JobQueue, 'counts'>; types: readonly string[] };
  /** The record-vector model, when record vectors are on. */
  vectorModel?: string;
  /**
   * With records waiting for vectors, how long to watch the backlog before measuring its drain
   * rate (ms; 0 reads once and leaves the rate unknown).
   */
  sampleMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Reads the status: the index (twice, `sampleMs` apart, while vectors are pending), jobs, storage. */
export async function readDeploymentStatus(sources: DeploymentStatusSources): Promise<DeploymentStatus> {
  const [backlog, jobs, storage] = await Promise.all([
    readVectorBacklog(sources),
    sources.jobs?.queue.counts(sources.jobs.types),
    sources.projects.storageByTenant(),
  ]);
  return {
    index: { records: backlog.records },
    jobs,
    storage,
    ...(backlog.vectors ? { vectors: backlog.vectors } : {}),
  };
}

/**
 * The index's size and its record-vector backlog with the drain rate (`alexandria status`, the
 * `alexandria ingest` summary): read twice, `sampleMs` apart, while vectors are pending.
 */
export async function readVectorBacklog(
  sources: Pick<DeploymentStatusSources, 'index' | 'vectorModel' | 'sampleMs' | 'now' | 'sleep'>,
): Promise<{ records: number; vectors?: DeploymentStatus['vectors'] }> {
  const now = sources.now ?? Date.now;
  const sleep = sources.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const first = await sources.index.stats(sources.vectorModel);
  if (!first.vectors) return { records: first.records };
  const trend = new VectorBacklogTrend(Number.POSITIVE_INFINITY);
  const started = now();
  trend.observe(started, first.vectors);
  let last = first;
  if (first.vectors.pending > 0 && sources.sampleMs > 0) {
    await sleep(sources.sampleMs);
    last = await sources.index.stats(sources.vectorModel);
    if (last.vectors) trend.observe(now(), last.vectors);
  }
  const vectors = last.vectors ?? first.vectors;
  return {
    records: last.records,
    vectors: {
      model: vectors.model,
      stored: vectors.stored,
      ...(trend.estimate() as BacklogEstimate),
      sampledSeconds: (now() - started) / 1000,
    },
  };
}
