import type { EmbeddingModel } from '../../ports/embedding-model.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { PaperIndex } from '../../ports/paper-index.js';
import { recordVectorText } from './hybrid-rerank.js';

export interface RecordVectorsJobOptions {
  /** Records embedded per model call (small: a question's passages may wait behind one batch). */
  batchSize: number;
  /** Pause after each batch, in ms, so ingest, search and questions get the cores between them. */
  pauseMs: number;
  /**
   * Pause when every record has a vector (or after a failure), before looking again, in ms. Such a
   * look reads only records above the highest id walked (new ones): cheap at any size.
   */
  idleMs: number;
  /**
   * How often the walk starts over from the first record, in ms (default 10 min): records whose
   * title or abstract changed keep their old ids and lost their vectors. A full walk over an index
   * whose records all have vectors reads every id once (about a second per million).
   */
  rescanMs?: number;
  onError?: (error: unknown) => void;
  /** Called after each stored batch (progress logs, tests). */
  onBatch?: (progress: { stored: number; lastId: number }) => void;
}

/** What one run over the records did. */
export interface RecordVectorsRun {
  embedded: number;
  stored: number;
  seconds: number;
}

/**
 * Computes the vectors of index records that have none (new records, records whose title or
 * abstract changed), in small batches, in the background (docs/decisions/0036-hybrid-paper-search.md).
 * Never in the way: an ingest writes without waiting for it, searches use the vectors present, a
 * batch failing is logged and retried later. Walks the records by id and starts over from the
 * beginning when it reaches the end (changed records have old ids). `stop` ends it (on close).
 */
export class RecordVectorsJob {
  private afterId = 0;
  /** Highest id the walk has passed; idle looks start there. */
  private highest = 0;
  private lastFullWalk = Date.now();
  private running: Promise<void> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly index: PaperIndex,
    private readonly model: EmbeddingModel,
    private readonly options: RecordVectorsJobOptions,
  ) {}

  /** Whether the index can store vectors at all. */
  static supported(index: PaperIndex): boolean {
    return Boolean(index.recordsWithoutVectors && index.putRecordVectors && index.recordVectors);
  }

  /** Starts the background loop (once); resolves nothing, errors go to `onError`. */
  start(): void {
    if (this.running || !RecordVectorsJob.supported(this.index)) return;
    this.running = this.loop();
  }

  /** Stops the loop after the batch in flight (its vectors are stored or dropped, never half). */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('record vectors job stopped'));
    await this.running;
  }

  /**
   * One batch after the cursor: embeds and stores it. Returns how many records it embedded and
   * stored (0 embedded: the walk reached the end and starts over next time).
   */
  async runBatch(signal?: AbortSignal): Promise<{ embedded: number; stored: number }> {
    const { recordsWithoutVectors, putRecordVectors } = this.index;
    if (!recordsWithoutVectors || !putRecordVectors) return { embedded: 0, stored: 0 };
    const records = await recordsWithoutVectors.call(
      this.index,
      this.model.id,
      this.afterId,
      this.options.batchSize,
    );
    if (records.length === 0) {
      // The end: next time, new records only, unless a walk from the start is due.
      const rescan = this.options.rescanMs ?? 600_000;
      this.highest = Math.max(this.highest, this.afterId);
      if (Date.now() - this.lastFullWalk >= rescan) {
        this.lastFullWalk = Date.now();
        this.afterId = 0;
      } else {
        this.afterId = this.highest;
      }
      return { embedded: 0, stored: 0 };
    }
    const vectors = await this.model.embed(
      records.map((record) => recordVectorText(record.paper)),
      {
        signal: signal ? AbortSignal.any([signal, this.stopping.signal]) : this.stopping.signal,
        inputType: 'document',
      },
    );
    const stored = await putRecordVectors.call(
      this.index,
      this.model.id,
      records.map((record, index) => ({
        id: record.id,
        stamp: record.stamp,
        vector: vectors[index] as Float32Array,
      })),
    );
    this.afterId = (records.at(-1) as { id: number }).id;
    this.highest = Math.max(this.highest, this.afterId);
    this.options.onBatch?.({ stored, lastId: this.afterId });
    return { embedded: records.length, stored };
  }

  /** Embeds every record that has no vector yet, in the foreground (benchmarks, evaluations). */
  async runToEnd(): Promise<RecordVectorsRun> {
    const started = performance.now();
    this.afterId = 0;
    this.lastFullWalk = Date.now();
    let embedded = 0;
    let stored = 0;
    for (;;) {
      const batch = await this.runBatch();
      if (batch.embedded === 0) break;
      embedded += batch.embedded;
      stored += batch.stored;
    }
    return { embedded, stored, seconds: (performance.now() - started) / 1000 };
  }

  /**
   * Embeds batches, `pauseMs` apart, until the walk reaches the end or `signal` aborts: one run of
   * the queued `embed-records` job (`scheduleRecordVectors`). Returns how many it embedded.
   */
  async runUntilDone(signal: AbortSignal): Promise<number> {
    const stop = AbortSignal.any([signal, this.stopping.signal]);
    let embedded = 0;
    while (!stop.aborted) {
      try {
        const batch = await this.runBatch(signal);
        if (batch.embedded === 0) break;
        embedded += batch.embedded;
      } catch (error) {
        // Stopped mid-batch: the batch is dropped whole, and the walk ends as done, not failed.
        if (stop.aborted) break;
        throw error;
      }
      await sleep(this.options.pauseMs, stop);
    }
    return embedded;
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      let wait = this.options.pauseMs;
      try {
        const batch = await this.runBatch();
        if (batch.embedded === 0) wait = this.options.idleMs;
      } catch (error) {
        if (signal.aborted) break;
        this.options.onError?.(error);
        wait = this.options.idleMs;
      }
      await sleep(wait, signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref?.();
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The queued job that computes record vectors (one waiting or running across every replica). */
export const embedRecordsJob = 'embed-records';
/** Its de-duplication id and lane: one index, one walk at a time, not any tenant's turn. */
const embedRecordsId = 'paper-index';
const embedRecordsLane = 'system:paper-index';

/**
 * Runs the record-vector walk as a queued job, so that replicas sharing one index (PostgreSQL +
 * Redis) do not each embed the same records: every process that keeps the index up to date
 * (`enqueue`) asks for a walk every `idleMs`; the queue keeps one such job waiting or running at a
 * time across replicas, and a process that runs jobs (`run`: `alexandria worker`, a replica with
 * ALEXANDRIA_RUN_JOBS, or the one process of the embedded default) walks until every record has a
 * vector. A replica killed mid-walk leaves the job to another worker (durable queue); the vectors
 * already stored stay. Returns a stop function (the timer; the queue stops the job itself).
 */
export function scheduleRecordVectors(
  queue: JobQueue,
  walker: RecordVectorsJob,
  options: { run: boolean; enqueue: boolean; idleMs: number; onError?: (error: unknown) => void },
): () => void {
  if (options.run) {
    queue.process(embedRecordsJob, async (_payload, context) => {
      await walker.runUntilDone(context.signal);
    });
  }
  if (!options.enqueue) return () => {};
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    queue.enqueue(embedRecordsJob, {}, { id: embedRecordsId, lane: embedRecordsLane }).then(
      () => schedule(options.idleMs),
      (error: unknown) => {
        options.onError?.(error);
        schedule(options.idleMs);
      },
    );
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(tick, ms);
    timer.unref?.();
  };
  schedule(0);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
