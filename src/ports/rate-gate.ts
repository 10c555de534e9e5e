/**
 * Spaces the starts of requests to one upstream source at least `intervalMs` apart (Semantic
 * Scholar: 1 s per key, arXiv: 3 s), first come first served. Adapters: in-process (one replica),
 * Redis (every replica shares one gate per source, so N replicas together keep the source's rate).
 * Times are the caller's clock, in milliseconds.
 */
export interface RateGate {
  /**
   * Reserves the next free start slot and resolves with the milliseconds until it (0: go now); the
   * caller waits that long, then sends. Resolves null, reserving nothing, when the wait would
   * exceed `maxWaitMs`.
   */
  reserve(maxWaitMs: number): Promise<number | null>;
  /** Moves the next free slot to `untilMs` at the earliest (a 429's Retry-After). */
  pushBack(untilMs: number): Promise<void>;
  /** Milliseconds a caller arriving now would wait. */
  waitMs(): Promise<number>;
}

/** Hands out the gate of each source: the same source name means the same gate. */
export interface RateGates {
  /** The gate of `source`; an interval ≤ 0 admits every request at once. */
  gate(source: string, intervalMs: number): RateGate;
}
