import {
  type EnqueuedJob,
  type EnqueueOptions,
  type JobCount,
  type JobHandler,
  type JobInfo,
  type JobPayload,
  type JobQueue,
  type JobState,
  jobCountStates,
  type ProcessOptions,
  type WaitOptions,
} from '../../ports/job-queue.js';
import {
  isOutageFailure,
  type JobRetryPolicy,
  outageDelay,
  retryDelay,
  retryPolicyOf,
} from '../jobs/job-retry-policy.js';

export interface MemoryJobQueueOptions extends Partial<JobRetryPolicy> {
  /** Finished jobs remembered for `get` (default 1000, oldest forgotten first). */
  keepFinished?: number;
  /** Told about every failed run (the job is retried unless it was the last attempt). */
  onError?: (error: unknown, job: { type: string; id: string; lane: string; attempt: number }) => void;
}

interface JobRecord {
  id: string;
  lane: string;
  payload: JobPayload;
  state: JobState;
  starts: number;
  /** Failures of the job's own (outages of a dependency do not count). */
  failures: number;
  /** Outages in a row, and since when (the job waits them out for `outagePatienceMs`). */
  outages: number;
  outageSince?: number;
  /** Waiting for a retry (not in a lane yet). */
  delayed?: boolean;
  finishedAt?: number;
  error?: string;
  /** Told once the job is done for good (completed or failed). */
  waiters: Array<() => void>;
}

interface TypeState {
  /** Waiting jobs per lane, oldest first; the map's order is the order lanes get their turns. */
  lanes: Map<string, JobRecord[]>;
  /** Jobs waiting, running or waiting for a retry, by de-duplication id. */
  live: Map<string, JobRecord>;
  /** Finished jobs, oldest first. */
  finished: Map<string, JobRecord>;
  handler?: JobHandler;
  concurrency: number;
  running: number;
}

/**
 * The embedded job queue: jobs run in this process, in turns between lanes (round-robin: each lane
 * with waiting jobs starts one before any lane starts its next), de-duplicated by id while waiting or
 * running. Not durable: jobs still waiting or running when the process stops are gone, which is why
 * the work they do must also happen on demand (a question embeds its document if no job did).
 */
export class MemoryJobQueue implements JobQueue {
  readonly shared = false;
  private readonly types = new Map<string, TypeState>();
  private readonly controllers = new Set<AbortController>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  private readonly retry: JobRetryPolicy;

  constructor(private readonly options: MemoryJobQueueOptions = {}) {
    this.retry = retryPolicyOf(options);
  }

  async enqueue(type: string, payload: JobPayload, options: EnqueueOptions): Promise<EnqueuedJob> {
    if (this.closed) throw new Error('the job queue is closed');
    const state = this.type(type);
    if (state.live.has(options.id)) return { id: options.id, created: false };
    const record: JobRecord = {
      id: options.id,
      lane: options.lane,
      payload: structuredClone(payload),
      state: 'waiting',
      starts: 0,
      failures: 0,
      outages: 0,
      waiters: [],
    };
    state.finished.delete(options.id);
    state.live.set(options.id, record);
    this.enlist(state, record);
    this.pump(type);
    return { id: options.id, created: true };
  }

  process<P extends JobPayload>(type: string, handler: JobHandler<P>, options: ProcessOptions = {}): void {
    const state = this.type(type);
    if (state.handler) throw new Error(`jobs of type ${type} already have a handler`);
    state.handler = handler as JobHandler;
    state.concurrency = Math.max(1, options.concurrency ?? 1);
    this.pump(type);
  }

  async counts(types: readonly string[]): Promise<JobCount[]> {
    return types.flatMap((type) => {
      const count = Object.fromEntries(jobCountStates.map((state) => [state, 0])) as Record<
        JobCount['state'],
        number
      >;
      const state = this.types.get(type);
      for (const record of [...(state?.live.values() ?? []), ...(state?.finished.values() ?? [])]) {
        count[record.delayed && record.state === 'waiting' ? 'delayed' : record.state] += 1;
      }
      return jobCountStates.map((name) => ({ type, state: name, count: count[name] }));
    });
  }

  async workerCount(type: string): Promise<number> {
    return this.types.get(type)?.handler && !this.closed ? 1 : 0;
  }

  async failed(type: string, limit: number): Promise<JobInfo[]> {
    const finished = [...(this.types.get(type)?.finished.values() ?? [])];
    return finished
      .filter((record) => record.state === 'failed')
      .reverse()
      .slice(0, limit)
      .map((record) => this.info(record));
  }

  async retryFailed(type: string, id?: string): Promise<number> {
    const state = this.types.get(type);
    if (!state) return 0;
    let retried = 0;
    for (const record of [...state.finished.values()]) {
      if (record.state !== 'failed' || (id !== undefined && record.id !== id) || state.live.has(record.id))
        continue;
      state.finished.delete(record.id);
      record.failures = 0;
      record.outages = 0;
      delete record.outageSince;
      state.live.set(record.id, record);
      this.enlist(state, record);
      retried += 1;
    }
    this.pump(type);
    return retried;
  }

  async get(type: string, id: string): Promise<JobInfo | null> {
    const record = this.record(type, id);
    return record ? this.info(record) : null;
  }

  /** Settles when the job finishes (a callback, no polling). */
  async wait(type: string, id: string, options: WaitOptions = {}): Promise<JobInfo | null> {
    const { signal } = options;
    signal?.throwIfAborted();
    const record = this.record(type, id);
    if (!record) return null;
    if (record.state === 'completed' || record.state === 'failed') return this.info(record);
    await new Promise<void>((resolve, reject) => {
      const abort = () => {
        record.waiters.splice(record.waiters.indexOf(done), 1);
        reject(signal?.reason);
      };
      const done = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      record.waiters.push(done);
      signal?.addEventListener('abort', abort, { once: true });
    });
    return this.info(record);
  }

  private record(type: string, id: string): JobRecord | undefined {
    const state = this.types.get(type);
    return state?.live.get(id) ?? state?.finished.get(id);
  }

  private info(record: JobRecord): JobInfo {
    return {
      id: record.id,
      lane: record.lane,
      state: record.state,
      payload: structuredClone(record.payload),
      starts: record.starts,
      ...(record.error === undefined ? {} : { error: record.error }),
      ...(record.finishedAt === undefined ? {} : { finishedAt: record.finishedAt }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const controller of this.controllers) controller.abort(new Error('the job queue closed'));
    // Jobs that never started end here, so nobody waits for them forever.
    for (const state of this.types.values()) {
      state.lanes.clear();
      for (const record of [...state.live.values()]) {
        if (record.state !== 'waiting') continue;
        record.error = 'the job queue closed before the job ran';
        this.finish(state, record, 'failed');
      }
    }
  }

  private type(type: string): TypeState {
    let state = this.types.get(type);
    if (!state) {
      state = { lanes: new Map(), live: new Map(), finished: new Map(), concurrency: 1, running: 0 };
      this.types.set(type, state);
    }
    return state;
  }

  private enlist(state: TypeState, record: JobRecord): void {
    record.state = 'waiting';
    record.delayed = false;
    const queue = state.lanes.get(record.lane);
    if (queue) queue.push(record);
    else state.lanes.set(record.lane, [record]);
  }

  /** The first waiting job of the lane whose turn it is; that lane then goes to the back. */
  private next(state: TypeState): JobRecord | undefined {
    for (const [lane, queue] of state.lanes) {
      const record = queue.shift();
      state.lanes.delete(lane);
      if (queue.length > 0) state.lanes.set(lane, queue);
      if (record) return record;
    }
    return undefined;
  }

  private pump(type: string): void {
    const state = this.type(type);
    while (!this.closed && state.handler && state.running < state.concurrency) {
      const record = this.next(state);
      if (!record) return;
      void this.run(type, state, state.handler, record);
    }
  }

  private async run(type: string, state: TypeState, handler: JobHandler, record: JobRecord): Promise<void> {
    state.running += 1;
    record.state = 'active';
    record.starts += 1;
    const controller = new AbortController();
    this.controllers.add(controller);
    const attempt = record.starts;
    try {
      await handler(structuredClone(record.payload), {
        id: record.id,
        lane: record.lane,
        attempt,
        signal: controller.signal,
      });
      record.outages = 0;
      this.finish(state, record, 'completed');
    } catch (error) {
      this.options.onError?.(error, { type, id: record.id, lane: record.lane, attempt });
      record.error = error instanceof Error ? error.message : String(error);
      const now = Date.now();
      const outage =
        isOutageFailure(error) && now - (record.outageSince ?? now) < this.retry.outagePatienceMs;
      if (outage) {
        record.outageSince ??= now;
        record.outages += 1;
      } else {
        record.failures += 1;
        record.outages = 0;
        delete record.outageSince;
      }
      if ((!outage && record.failures >= this.retry.attempts) || this.closed) {
        this.finish(state, record, 'failed');
      } else {
        // Waits for its retry out of the lanes (still de-duplicated), then queues at the back.
        record.state = 'waiting';
        record.delayed = true;
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            this.enlist(state, record);
            this.pump(type);
          },
          outage ? outageDelay(this.retry, record.outages) : retryDelay(this.retry, record.failures),
        );
        timer.unref();
        this.timers.add(timer);
      }
    } finally {
      this.controllers.delete(controller);
      state.running -= 1;
      this.pump(type);
    }
  }

  private finish(state: TypeState, record: JobRecord, outcome: 'completed' | 'failed'): void {
    record.state = outcome;
    record.finishedAt = Date.now();
    if (outcome === 'completed') delete record.error;
    state.live.delete(record.id);
    state.finished.set(record.id, record);
    const keep = this.options.keepFinished ?? 1000;
    for (const id of state.finished.keys()) {
      if (state.finished.size <= keep) break;
      state.finished.delete(id);
    }
    for (const waiter of record.waiters.splice(0)) waiter();
  }
}
