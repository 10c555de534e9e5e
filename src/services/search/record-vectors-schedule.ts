import type { JobQueue } from '../../ports/job-queue.js';
import type { RecordRange, RecordVectorsJob } from './record-vectors-job.js';

/**
 * The queued job that plans the record-vector work (one waiting or running across every replica):
 * it cuts the records without vectors into ranges, each an `embed-record-range` job.
 */
export const embedRecordsJob = 'embed-records';
/** One range of records to embed; every process that runs jobs takes ranges at once. */
export const embedRecordRangeJob = 'embed-record-range';
/** The planner's de-duplication id and lane: one index, one plan at a time, not any tenant's turn. */
const embedRecordsId = 'paper-index';
const embedRecordsLane = 'system:paper-index';

export interface RecordVectorsScheduleOptions {
  /** This process runs the jobs (`alexandria worker`, a replica of role `all`, the embedded default). */
  run: boolean;
  /** This process asks for a plan every `idleMs` (every process that keeps the index up to date). */
  enqueue: boolean;
  idleMs: number;
  /** Records per range job (default 256): small enough that N workers share a backlog evenly. */
  rangeSize?: number;
  /** Ranges one plan queues at most (default 64); the next plan queues more once they are done. */
  maxRanges?: number;
  onError?: (error: unknown) => void;
}

/**
 * Runs the record vectors as queued jobs (docs/decisions/0036, 0046), so that replicas sharing one
 * index (PostgreSQL + Redis) do not each embed the same records and several workers embed at once:
 * every process asks for a plan every `idleMs`; the queue keeps one plan waiting or running at a
 * time; a plan — only when no range is waiting or running, so ranges never overlap — queues the
 * records without vectors as ranges of `rangeSize`, and every process that runs jobs takes ranges,
 * one at a time each: N workers drain the backlog about N times as fast. A worker killed mid-range
 * leaves its range to another (durable queue); vectors already stored stay. Returns a stop
 * function (the timer; the queue stops the jobs itself).
 */
export function scheduleRecordVectors(
  queue: JobQueue,
  walker: RecordVectorsJob,
  options: RecordVectorsScheduleOptions,
): () => void {
  if (options.run) {
    queue.process(embedRecordsJob, async () => {
      const pending = await queue.counts([embedRecordRangeJob]);
      if (
        pending.some((count) => count.state !== 'failed' && count.state !== 'completed' && count.count > 0)
      ) {
        return;
      }
      await walker.planRanges(
        options.rangeSize ?? 256,
        options.maxRanges ?? 64,
        async (range: RecordRange) => {
          const id = `${range.afterId}-${range.throughId}`;
          await queue.enqueue(embedRecordRangeJob, { ...range }, { id, lane: embedRecordsLane });
        },
      );
    });
    queue.process(embedRecordRangeJob, async (payload, context) => {
      await walker.runRange(
        { afterId: Number(payload.afterId), throughId: Number(payload.throughId) },
        context.signal,
      );
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
