/**
 * Token-bucket rate limiting per key (an API key id). Each bucket holds `burst` tokens and refills at
 * `perMinute / 60` tokens a second. Adapters: in-process (one replica), Redis (shared by replicas);
 * both pass `test/contract/rate-limiter.contract.ts`.
 */
export interface RateLimiter {
  /** Takes `cost` tokens from the bucket of `key`. */
  take(key: string, cost?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export interface RateDecision {
  allowed: boolean;
  /** Tokens left after this request (floored). */
  remaining: number;
  /** When refused: whole seconds until `cost` tokens are available again (≥ 1). */
  retryAfterSeconds: number;
}

export interface RateLimitPolicy {
  perMinute: number;
  burst: number;
}
