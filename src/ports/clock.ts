/** Time source, injectable so tests can move time (rate limits, caches, breakers). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
