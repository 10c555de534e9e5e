/**
 * Background jobs: work that outlives the request that asked for it (embedding a filed PDF's
 * passages, later parsing and record embedding). A job has a type, a JSON payload, a
 * de-duplication id and a lane (the tenant):
 *
 * - **De-duplicated**: while a job with the same type and id is waiting or running, enqueueing it
 *   again adds nothing (across every replica sharing the queue). Once it has finished, the same id
 *   may run again.
 * - **At-least-once**: a handler that throws is retried (up to the adapter's attempts); a worker
 *   that dies mid-job leaves the job to another worker (durable adapters only). Handlers must be
 *   idempotent: running a job twice has the effect of running it once.
 * - **Fair between lanes**: waiting jobs of a lane with little backlog run before the backlog of a
 *   busy lane, so one tenant's thousand jobs do not hold back another tenant's first one.
 *
 * Adapters: in-process (embedded default: jobs run in the process that enqueued them and die with
 * it), Redis through BullMQ (`REDIS_URL`: durable, shared by replicas and `alexandria worker`
 * processes); both pass `test/contract/job-queue.contract.ts`.
 */
export interface JobQueue {
  /**
   * True when the queue is shared with other processes (Redis): a job may run in another replica
   * or worker and outlives this process, so what it reads must be in shared storage. False for the
   * in-process queue, whose jobs run here.
   */
  readonly shared: boolean;
  /** Adds a job unless one with the same `type` and `options.id` is waiting or running. */
  enqueue(type: string, payload: JobPayload, options: EnqueueOptions): Promise<EnqueuedJob>;
  /**
   * Runs jobs of `type` in this process with `handler`, up to `concurrency` at a time, until
   * `close()`. Call once per type. Jobs enqueued before this call (or by other processes) run too.
   */
  process<P extends JobPayload>(type: string, handler: JobHandler<P>, options?: ProcessOptions): void;
  /** The latest job of `type` with de-duplication id `id`, or null when none is known (any more). */
  get(type: string, id: string): Promise<JobInfo | null>;
  /**
   * Waits until the latest job of `type` with id `id` is done for good (completed, or failed its
   * last attempt) and returns its info; at once when it already is, null when no such job is known.
   * Retries and take-overs from a dead worker are waited through. Rejects with the signal's reason
   * when `options.signal` aborts (the job itself goes on).
   */
  wait(type: string, id: string, options?: WaitOptions): Promise<JobInfo | null>;
  /**
   * How many jobs of each of `types` are in each state, across every process sharing the queue
   * (`alexandria_jobs{queue,state}` on /metrics, `alexandria jobs`). `waiting` includes jobs waiting
   * their turn by priority; `delayed` are waiting for a retry.
   */
  counts(types: readonly string[]): Promise<JobCount[]>;
  /**
   * Processes running jobs of `type` right now (across the deployment for a shared queue; 1 or 0 in
   * process). Zero means a queued job of that type waits until a worker starts.
   */
  workerCount(type: string): Promise<number>;
  /** Up to `limit` jobs of `type` that failed for good, most recent first. */
  failed(type: string, limit: number): Promise<JobInfo[]>;
  /** Queues failed jobs of `type` again (only the one with de-duplication id `id` when given); how many. */
  retryFailed(type: string, id?: string): Promise<number>;
  /**
   * Stops taking jobs. Running jobs get the adapter's grace period to finish; past it their signal
   * aborts and a durable adapter puts them back in the queue for another worker.
   */
  close(): Promise<void>;
}

/** A job's payload: JSON (strings, numbers, booleans, null, arrays, objects). */
export type JobPayload = Record<string, unknown>;

export interface EnqueueOptions {
  /** De-duplication id, e.g. a document's content hash: one waiting or running job per id. */
  id: string;
  /** Whose turn the job takes (the tenant); lanes share the workers fairly. */
  lane: string;
}

export interface EnqueuedJob {
  /** The de-duplication id given. */
  id: string;
  /** False when a job with this id was already waiting or running (nothing was added). */
  created: boolean;
}

export interface WaitOptions {
  /** Stops waiting (not the job). */
  signal?: AbortSignal | undefined;
}

export interface ProcessOptions {
  /** Jobs of this type run at once in this process (default 1). */
  concurrency?: number;
}

export interface JobContext {
  id: string;
  lane: string;
  /** 1 on the first run, 2 on the first retry or after the job was taken over from a dead worker… */
  attempt: number;
  /** Aborts when this process stops before the job finished (the job is then released). */
  signal: AbortSignal;
}

export type JobHandler<P extends JobPayload = JobPayload> = (
  payload: P,
  context: JobContext,
) => Promise<void>;

export type JobState = 'waiting' | 'active' | 'completed' | 'failed';

/** The states `counts` tells apart: `JobState` with retries' waits (`delayed`) on their own. */
export const jobCountStates = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

export interface JobCount {
  type: string;
  state: (typeof jobCountStates)[number];
  count: number;
}

export interface JobInfo {
  id: string;
  lane: string;
  state: JobState;
  payload: JobPayload;
  /** Times a worker started it (retries and take-overs included). */
  starts: number;
  /** The last error, once failed. */
  error?: string;
  /** When it finished (ms since the epoch), where the adapter knows. */
  finishedAt?: number;
}
