/**
 * Counting semaphores by key with expiring places: at most `limit` holders of one key at once
 * (a tenant's heavy requests, decision 0042). A place is held until released, or until its
 * time-to-live passes without a renewal, so a process killed while holding places frees them by
 * itself. Adapters: in-process (one replica), Redis (every replica counts the same places); both
 * pass `test/contract/concurrency-limiter.contract.ts`. Times are the caller's clock, in ms.
 */
export interface ConcurrencyLimiter {
  /**
   * Takes one of the `limit` places of `key` for `ttlMs`. When all are held it takes nothing and
   * says how long until the first of them expires (an upper bound of the wait: most are released
   * sooner).
   */
  acquire(key: string, limit: number, ttlMs: number): Promise<ConcurrencyDecision>;
  /** Extends a held place by `ttlMs` from now; false when it is no longer held (it expired). */
  renew(key: string, place: string, ttlMs: number): Promise<boolean>;
  /** Gives a place back (nothing happens when it is not held). */
  release(key: string, place: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A place taken (`place` is its id, for `renew` and `release`), or refused (`expiresInMs`: until
 * the earliest held place expires, ≥ 0).
 */
export type ConcurrencyDecision = { granted: true; place: string } | { granted: false; expiresInMs: number };
