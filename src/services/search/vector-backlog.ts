import type { IndexStats } from '../../ports/paper-index.js';

/** One reading of the record-vector backlog (`PaperIndex.stats` with the model), with its time. */
export interface BacklogReading {
  /** When it was read, in ms (any monotonic or wall clock, the same for every reading). */
  at: number;
  stored: number;
  pending: number;
}

/** How fast the backlog drains and when it will be empty, from readings over a window. */
export interface BacklogEstimate {
  /** Records waiting for a vector at the last reading. */
  pending: number;
  /**
   * Vectors stored per second between the oldest and the newest reading of the window, by every
   * process of the deployment (it is read from the index, not counted here); undefined with fewer
   * than two readings a second apart.
   */
  drainPerSecond?: number;
  /**
   * Seconds until nothing is pending at that rate: 0 when nothing is; undefined while the rate is
   * unknown or zero with records pending (the backlog is not draining).
   */
  etaSeconds?: number;
}

/**
 * The vector backlog's trend, from successive readings: `/metrics` feeds it one per scrape (gauges
 * `alexandria_record_vectors_drain_per_second` and `_eta_seconds`), `alexandria status` two a few
 * seconds apart. The drain rate is measured on the stored vectors, not on the pending count, so an
 * ingest adding records while the walk embeds does not hide the walk's pace.
 */
export class VectorBacklogTrend {
  private readings: BacklogReading[] = [];

  /** `windowMs`: how far back the rate looks (default 5 minutes). */
  constructor(private readonly windowMs = 300_000) {}

  /** Adds a reading (from `IndexStats.vectors`); readings older than the window are dropped. */
  observe(at: number, vectors: NonNullable<IndexStats['vectors']>): void {
    this.readings.push({ at, stored: vectors.stored, pending: vectors.pending });
    const newest = at;
    // Keep one reading at or beyond the window's start, so the rate always spans the window.
    while (this.readings.length > 2 && newest - (this.readings[1]?.at ?? newest) >= this.windowMs) {
      this.readings.shift();
    }
  }

  estimate(): BacklogEstimate | undefined {
    const newest = this.readings.at(-1);
    const oldest = this.readings[0];
    if (!newest || !oldest) return undefined;
    const seconds = (newest.at - oldest.at) / 1000;
    const drainPerSecond = seconds < 1 ? undefined : Math.max(0, newest.stored - oldest.stored) / seconds;
    return { pending: newest.pending, drainPerSecond, etaSeconds: etaOf(newest.pending, drainPerSecond) };
  }
}

function etaOf(pending: number, drainPerSecond: number | undefined): number | undefined {
  if (pending === 0) return 0;
  if (!drainPerSecond) return undefined;
  return pending / drainPerSecond;
}
