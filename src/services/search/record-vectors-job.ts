import type { EmbeddingModel } from '../../ports/embedding-model.js';
import type { PaperIndex, RecordToEmbed } from '../../ports/paper-index.js';
import { recordVectorText } from './hybrid-rerank.js';

export interface RecordVectorsJobOptions {
  /** Records embedded per model call (small: a question's passages may wait behind one batch). */
  batchSize: number;
  /** Tokens of each record's text embedded (`EmbedOptions.maxTokens`); absent or 0: the model's own. */
  maxTokens?: number;
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

/** Records by id, `afterId` excluded, `throughId` included: the unit several workers share. */
export interface RecordRange {
  afterId: number;
  throughId: number;
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
      this.reachedEnd();
      return { embedded: 0, stored: 0 };
    }
    const stored = await this.embedAndStore(records, signal);
    this.afterId = (records.at(-1) as { id: number }).id;
    this.highest = Math.max(this.highest, this.afterId);
    this.options.onBatch?.({ stored, lastId: this.afterId });
    return { embedded: records.length, stored };
  }

  /** The walk reached the end: next time, new records only, unless a walk from the start is due. */
  private reachedEnd(): void {
    const rescan = this.options.rescanMs ?? 600_000;
    this.highest = Math.max(this.highest, this.afterId);
    if (Date.now() - this.lastFullWalk >= rescan) {
      this.lastFullWalk = Date.now();
      this.afterId = 0;
    } else {
      this.afterId = this.highest;
    }
  }

  /** Embeds and stores one batch of records (their vectors are stored whole or not at all). */
  private async embedAndStore(records: readonly RecordToEmbed[], signal?: AbortSignal): Promise<number> {
    const putRecordVectors = this.index.putRecordVectors;
    if (!putRecordVectors || records.length === 0) return 0;
    const vectors = await this.model.embed(
      records.map((record) => recordVectorText(record.paper)),
      {
        signal: signal ? AbortSignal.any([signal, this.stopping.signal]) : this.stopping.signal,
        inputType: 'document',
        // Nobody waits for these: the model may use every idle core at a low priority.
        background: true,
        ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
      },
    );
    return putRecordVectors.call(
      this.index,
      this.model.id,
      records.map((record, index) => ({
        id: record.id,
        stamp: record.stamp,
        vector: vectors[index] as Float32Array,
      })),
    );
  }

  /**
   * Cuts the walk ahead into ranges of about `rangeSize` records without vectors — (afterId,
   * throughId] each — and hands each to `plan` (which queues it as an `embed-record-range` job, so
   * that every worker takes ranges at once). Plans at most `maxRanges`; the cursor moves as
   * `runBatch`'s does (new records only, a walk from the start every `rescanMs`). Returns how many
   * ranges it planned.
   */
  async planRanges(
    rangeSize: number,
    maxRanges: number,
    plan: (range: RecordRange) => Promise<void>,
  ): Promise<number> {
    const recordsWithoutVectors = this.index.recordsWithoutVectors;
    if (!recordsWithoutVectors) return 0;
    let planned = 0;
    while (planned < maxRanges && !this.stopping.signal.aborted) {
      const records = await recordsWithoutVectors.call(this.index, this.model.id, this.afterId, rangeSize);
      const last = records.at(-1);
      if (!last) {
        this.reachedEnd();
        break;
      }
      await plan({ afterId: this.afterId, throughId: last.id });
      planned += 1;
      this.afterId = last.id;
      this.highest = Math.max(this.highest, this.afterId);
    }
    return planned;
  }

  /**
   * Embeds the records of one range that still have no vector, batch by batch, `pauseMs` apart, until
   * the range is done or `signal` aborts. Returns how many it embedded.
   */
  async runRange(range: RecordRange, signal: AbortSignal): Promise<number> {
    const recordsWithoutVectors = this.index.recordsWithoutVectors;
    if (!recordsWithoutVectors) return 0;
    const stop = AbortSignal.any([signal, this.stopping.signal]);
    let cursor = range.afterId;
    let embedded = 0;
    while (!stop.aborted) {
      const records = (
        await recordsWithoutVectors.call(this.index, this.model.id, cursor, this.options.batchSize)
      ).filter((record) => record.id <= range.throughId);
      const last = records.at(-1);
      if (!last) break;
      try {
        const stored = await this.embedAndStore(records, signal);
        this.options.onBatch?.({ stored, lastId: last.id });
      } catch (error) {
        if (stop.aborted) break; // stopped mid-batch: dropped whole; the job is released
        throw error;
      }
      embedded += records.length;
      cursor = last.id;
      await sleep(this.options.pauseMs, stop);
    }
    return embedded;
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
