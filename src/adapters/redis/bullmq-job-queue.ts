import { randomUUID } from 'node:crypto';
import { DelayedError, type Job, Queue, QueueEvents, WaitingError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { AppError } from '../../domain/errors.js';
import type {
  EnqueuedJob,
  EnqueueOptions,
  JobCount,
  JobHandler,
  JobInfo,
  JobPayload,
  JobQueue,
  JobState,
  ProcessOptions,
  WaitOptions,
} from '../../ports/job-queue.js';
import {
  isOutageFailure,
  type JobRetryPolicy,
  outageDelay,
  retryDelay,
  retryPolicyOf,
} from '../jobs/job-retry-policy.js';
import { countJobs, failedJobs, retryFailedJobs, type StoredJob } from './bullmq-job-admin.js';

export interface BullMqJobQueueOptions extends Partial<JobRetryPolicy> {
  /** redis://… of the Redis every replica and worker shares. */
  url: string;
  /** Key prefix of every queue (default `alexandria:jobs`); one deployment, one prefix. */
  prefix?: string;
  /**
   * How long a worker's claim on a running job lasts without being renewed (it renews at half
   * that while alive). A killed worker's job is taken over by another worker about one lock plus
   * one stalled-check interval later (default 30000 ms).
   */
  lockDurationMs?: number;
  /** How often workers look for jobs whose worker died (default: the lock duration). */
  stalledIntervalMs?: number;
  /** Take-overs after a dead worker before the job counts as failed (default 3). */
  maxStalledCount?: number;
  /** How long finished jobs stay readable through `get` (default 1 day). */
  keepFinishedSeconds?: number;
  /** On close, how long running jobs may take to finish before they are put back (default 10000 ms). */
  shutdownGraceMs?: number;
  /** Told about failed runs and Redis errors. */
  onError?: (error: unknown, job?: { type: string; id: string; lane: string; attempt: number }) => void;
}

/** The backoff type jobs are queued with; the workers' strategy reads the retry policy. */
const backoffType = 'alexandria';

/**
 * While waiting for a job, how often its state is read again in case a finish event was missed (a
 * reconnect to Redis): events settle a wait at once, this only bounds the damage of a lost one.
 */
const waitRecheckMs = 5000;

/** BullMQ accepts priorities from 1 (first) to 2^21 − 1. */
const lowestPriority = 2 ** 21 - 1;
/** Lane backlog counters outlive a crash that skipped their decrement by at most this. */
const laneCounterTtlSeconds = 24 * 3600;

/**
 * Decrements a lane's backlog counter, never below zero (a counter a crash left too low is simply
 * deleted), and refreshes its expiry.
 */
const decrementLane = `
local value = redis.call('DECR', KEYS[1])
if value <= 0 then redis.call('DEL', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return value`;

/**
 * The job queue shared through Redis, on BullMQ: one BullMQ queue per job type, a BullMQ worker per
 * type in every process that runs jobs.
 *
 * - De-duplication: BullMQ's deduplication id (kept while the job waits or runs, dropped when it
 *   finishes); each run gets its own BullMQ job id, remembered under the de-duplication id for `get`.
 * - Durability: a running job holds a lock its worker renews; when the worker dies (kill -9) the lock
 *   expires and the stalled-job check of any other worker puts the job back in the queue.
 * - Fairness between lanes without BullMQ Pro's groups: every job gets a priority equal to its
 *   position in its lane's backlog (1 for a lane with nothing waiting or running), kept in a counter
 *   per lane. Jobs with equal priority run oldest first, so a quiet tenant's job runs right after the
 *   running ones while a busy tenant's backlog waits its turn: a round-robin between lanes by their
 *   jobs' positions. The counters are advisory (a crash may leave one off by one until it expires).
 * - Shutdown: running jobs get a grace period, then their signal aborts and they are moved back to
 *   the queue for another worker (not counted as a failed attempt).
 */
export class BullMqJobQueue implements JobQueue {
  readonly shared = true;
  private readonly client: Redis;
  /** Workers block on their own connections (BullMQ duplicates this one for that). */
  private readonly workerClient: Redis;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  /** Finish events per job type, read on a blocking connection of their own (opened by `wait`). */
  private readonly events = new Map<string, Promise<{ events: QueueEvents; connection: Redis }>>();
  private readonly prefix: string;
  private closing: Promise<void> | undefined;
  private readonly retry: JobRetryPolicy;

  constructor(private readonly options: BullMqJobQueueOptions) {
    this.prefix = options.prefix ?? 'alexandria:jobs';
    this.retry = retryPolicyOf(options);
    // Connected on first use: a process that neither queues nor runs jobs opens no connection. Its
    // commands time out, so a hung Redis fails an enqueue (503) instead of stalling the request.
    this.client = new Redis(options.url, {
      maxRetriesPerRequest: 2,
      lazyConnect: true,
      commandTimeout: 5_000,
    });
    this.workerClient = new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: true });
    for (const client of [this.client, this.workerClient]) {
      client.on('error', (error: unknown) => this.options.onError?.(error));
    }
  }

  async enqueue(type: string, payload: JobPayload, options: EnqueueOptions): Promise<EnqueuedJob> {
    if (this.closing) throw new Error('the job queue is closed');
    return this.add(type, payload, options).catch((error: unknown) => {
      throw queueUnavailable(error);
    });
  }

  private async add(type: string, payload: JobPayload, options: EnqueueOptions): Promise<EnqueuedJob> {
    const laneKey = this.laneKey(type, options.lane);
    const backlog = Number((await this.client.get(laneKey)) ?? 0);
    const runId = randomUUID();
    const data: StoredJob = { payload, lane: options.lane, id: options.id };
    const job = await this.queue(type).add(type, data, {
      jobId: runId,
      deduplication: { id: options.id },
      priority: Math.min(lowestPriority, Math.max(1, backlog + 1)),
      attempts: this.retry.attempts,
      backoff: { type: backoffType },
      removeOnComplete: { age: this.keepSeconds },
      removeOnFail: { age: this.keepSeconds },
    });
    const created = job.id === runId;
    if (created) {
      await this.client
        .multi()
        .incr(laneKey)
        .expire(laneKey, laneCounterTtlSeconds)
        .set(this.runKey(type, options.id), runId, 'EX', this.keepSeconds + laneCounterTtlSeconds)
        .exec();
    }
    return { id: options.id, created };
  }

  process<P extends JobPayload>(type: string, handler: JobHandler<P>, options: ProcessOptions = {}): void {
    if (this.closing) throw new Error('the job queue is closed');
    if (this.workers.has(type)) throw new Error(`jobs of type ${type} already have a handler`);
    const lockDuration = this.options.lockDurationMs ?? 30_000;
    const worker = new Worker<StoredJob>(
      type,
      async (job, token, signal) => this.run(type, job, token, signal, handler as JobHandler),
      {
        connection: this.workerClient,
        prefix: this.prefix,
        concurrency: Math.max(1, options.concurrency ?? 1),
        lockDuration,
        stalledInterval: this.options.stalledIntervalMs ?? lockDuration,
        maxStalledCount: this.options.maxStalledCount ?? 3,
        removeOnComplete: { age: this.keepSeconds },
        removeOnFail: { age: this.keepSeconds },
        // Failures of the job's own: doubling waits up to a cap (outages are put back in run()).
        settings: { backoffStrategy: (attemptsMade: number) => retryDelay(this.retry, attemptsMade) },
      },
    );
    worker.on('error', (error) => this.options.onError?.(error));
    // The lane's backlog shrinks when a job is done for good (completed, or failed its last attempt).
    worker.on('completed', (job) => void this.leaveLane(type, job));
    worker.on('failed', (job) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void this.leaveLane(type, job);
    });
    this.workers.set(type, worker);
  }

  async get(type: string, id: string): Promise<JobInfo | null> {
    try {
      const runId = await this.client.get(this.runKey(type, id));
      return runId ? await this.infoOf(type, id, runId) : null;
    } catch (error) {
      throw queueUnavailable(error);
    }
  }

  counts(types: readonly string[]): Promise<JobCount[]> {
    return this.admin(async () =>
      (await Promise.all(types.map((type) => countJobs(this.queue(type), type)))).flat(),
    );
  }

  workerCount(type: string): Promise<number> {
    return this.admin(() => this.queue(type).getWorkersCount());
  }

  failed(type: string, limit: number): Promise<JobInfo[]> {
    return this.admin(() => failedJobs(this.queue(type), limit));
  }

  retryFailed(type: string, id?: string): Promise<number> {
    return this.admin(() => retryFailedJobs(this.queue(type), id));
  }

  /** A look at the queue whose Redis failure is the 503 of the request (or command) that asked. */
  private async admin<T>(look: () => Promise<T>): Promise<T> {
    try {
      return await look();
    } catch (error) {
      throw queueUnavailable(error);
    }
  }

  private async infoOf(type: string, id: string, runId: string): Promise<JobInfo | null> {
    const job = (await this.queue(type).getJob(runId)) as Job<StoredJob> | undefined;
    if (!job) return null;
    const state = stateOf(await job.getState());
    if (!state) return null;
    return {
      id,
      lane: job.data.lane,
      state,
      payload: job.data.payload,
      starts: job.attemptsStarted,
      ...(state === 'failed' && job.failedReason ? { error: job.failedReason } : {}),
    };
  }

  /**
   * Settles on the job's finish event (BullMQ's event stream, read by one `QueueEvents` per type
   * in this process); the state is read once after listening starts, so a job that finished just
   * before is not missed.
   */
  async wait(type: string, id: string, options: WaitOptions = {}): Promise<JobInfo | null> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (this.closing) throw new Error('the job queue is closed');
    let runId: string | null;
    let events: QueueEvents;
    try {
      ({ events } = await this.queueEvents(type));
      runId =
        (await this.queue(type).getDeduplicationJobId(id)) ?? (await this.client.get(this.runKey(type, id)));
    } catch (error) {
      throw queueUnavailable(error);
    }
    if (!runId) return null;
    return new Promise<JobInfo | null>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        events.off('completed', onFinished);
        events.off('failed', onFinished);
        clearInterval(timer);
        signal?.removeEventListener('abort', abort);
        outcome();
      };
      const check = () => {
        // Never a throw inside the timer: a failure settles the wait, it cannot end the process.
        Promise.resolve()
          .then(() => this.infoOf(type, id, runId as string))
          .then(
            (info) => {
              if (!info || info.state === 'completed' || info.state === 'failed') finish(() => resolve(info));
            },
            (error: unknown) => finish(() => reject(queueUnavailable(error))),
          );
      };
      const onFinished = (event: { jobId: string }) => {
        if (event.jobId === runId) check();
      };
      const abort = () => finish(() => reject(signal?.reason));
      events.on('completed', onFinished);
      events.on('failed', onFinished);
      const timer = setInterval(check, waitRecheckMs);
      timer.unref();
      signal?.addEventListener('abort', abort, { once: true });
      // It may have aborted while the events reader and the run id were looked up.
      if (signal?.aborted) abort();
      else check();
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const grace = this.options.shutdownGraceMs ?? 10_000;
    await Promise.all(
      [...this.workers.values()].map(async (worker) => {
        const closed = worker.close();
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), grace);
        });
        if ((await Promise.race([closed, late])) === 'late') {
          // Past the grace: abort the handlers; run() puts their jobs back in the queue.
          worker.cancelAllJobs('this worker is shutting down');
        }
        clearTimeout(timer);
        await closed.catch((error: unknown) => this.options.onError?.(error));
      }),
    );
    for (const opened of this.events.values()) {
      const { events, connection } = await opened.catch(() => ({ events: undefined, connection: undefined }));
      await events?.close().catch((error: unknown) => this.options.onError?.(error));
      connection?.disconnect();
    }
    for (const queue of this.queues.values()) {
      await queue.close().catch((error: unknown) => this.options.onError?.(error));
    }
    for (const client of [this.workerClient, this.client]) {
      if (client.status === 'wait' || client.status === 'end') client.disconnect();
      else await client.quit().catch(() => client.disconnect());
    }
  }

  private async run(
    type: string,
    job: Job<StoredJob>,
    token: string | undefined,
    signal: AbortSignal | undefined,
    handler: JobHandler,
  ): Promise<void> {
    const { payload, lane, id } = job.data;
    const attempt = Math.max(job.attemptsStarted, job.attemptsMade + 1);
    const controller = new AbortController();
    let release = () => {};
    const released = new Promise<'released'>((resolve) => {
      release = () => resolve('released');
      if (signal?.aborted) release();
      signal?.addEventListener('abort', release, { once: true });
    });
    released.then(() => controller.abort(signal?.reason));
    const work = handler(payload, { id, lane, attempt, signal: controller.signal });
    try {
      if ((await Promise.race([work, released])) === 'released') {
        work.catch(() => {}); // it may still settle; nobody waits for it
        await job.moveToWait(token);
        throw new WaitingError();
      }
    } catch (error) {
      if (error instanceof WaitingError) throw error;
      this.options.onError?.(error, { type, id, lane, attempt });
      if (isOutageFailure(error) && token && (await this.waitOutOutage(job, token))) throw new DelayedError();
      throw error;
    } finally {
      // The worker's signal outlives the job: a listener left on it would keep every job alive.
      signal?.removeEventListener('abort', release);
    }
  }

  /**
   * Puts a job that failed for a dependency's outage back to wait (1 s, 2 s, … capped), without
   * spending an attempt, while its outages have lasted less than the patience. False when it has
   * waited long enough, or Redis cannot take it back either (then it fails as any other error).
   */
  private async waitOutOutage(job: Job<StoredJob>, token: string): Promise<boolean> {
    const now = Date.now();
    const since = job.data.outageSince ?? now;
    if (now - since >= this.retry.outagePatienceMs) return false;
    const outages = (job.data.outages ?? 0) + 1;
    try {
      await job.updateData({ ...job.data, outageSince: since, outages });
      await job.moveToDelayed(now + outageDelay(this.retry, outages), token);
      return true;
    } catch (error) {
      this.options.onError?.(error);
      return false;
    }
  }

  private async leaveLane(type: string, job: Job<StoredJob>): Promise<void> {
    try {
      await this.client.eval(
        decrementLane,
        1,
        this.laneKey(type, job.data.lane),
        String(laneCounterTtlSeconds),
      );
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  private queue(type: string): Queue {
    let queue = this.queues.get(type);
    if (!queue) {
      queue = new Queue(type, { connection: this.client, prefix: this.prefix });
      queue.on('error', (error) => this.options.onError?.(error));
      this.queues.set(type, queue);
    }
    return queue;
  }

  /**
   * The type's finish events, listened to from the stream's current end: read before the reader
   * starts, so an event added meanwhile is still delivered.
   */
  private queueEvents(type: string): Promise<{ events: QueueEvents; connection: Redis }> {
    let opened = this.events.get(type);
    if (!opened) {
      opened = (async () => {
        const stream = this.queue(type).keys.events as string;
        const [last] = await this.client.xrevrange(stream, '+', '-', 'COUNT', 1);
        const connection = new Redis(this.options.url, { maxRetriesPerRequest: null });
        connection.on('error', (error: unknown) => this.options.onError?.(error));
        const events = new QueueEvents(type, {
          connection,
          prefix: this.prefix,
          lastEventId: last?.[0] ?? '0',
        });
        events.on('error', (error) => this.options.onError?.(error));
        // One listener per waiting caller: many may wait at once.
        events.setMaxListeners(0);
        return { events, connection };
      })();
      opened.catch(() => this.events.delete(type));
      this.events.set(type, opened);
    }
    return opened;
  }

  private get keepSeconds(): number {
    return this.options.keepFinishedSeconds ?? 24 * 3600;
  }

  private laneKey(type: string, lane: string): string {
    return `${this.prefix}:${type}:lane:${lane}`;
  }

  private runKey(type: string, id: string): string {
    return `${this.prefix}:${type}:run:${id}`;
  }
}

/** A Redis failure as the 503 of the request that needed the queue. */
function queueUnavailable(error: unknown): unknown {
  if (error instanceof AppError) return error;
  return new AppError('unavailable', 'The job queue (Redis) is unavailable right now; retry shortly', {
    retryAfterSeconds: 5,
    cause: error,
  });
}

function stateOf(state: string): JobState | null {
  switch (state) {
    case 'completed':
    case 'failed':
    case 'active':
      return state;
    case 'waiting':
    case 'prioritized':
    case 'delayed':
    case 'waiting-children':
      return 'waiting';
    default:
      return null;
  }
}
