/**
 * A per-source circuit breaker. After `failureThreshold` consecutive failures the source is skipped
 * for `cooldownMs`; then one trial call may go (half-open): its success closes the circuit, its
 * failure opens it for another cooldown. This is what keeps an offline server fast: once a source
 * is known to be down, requests skip it instead of waiting for timeouts. Adapters: in-process (one
 * replica), Redis (a circuit opened by one replica is open for all).
 */
export interface CircuitBreaker {
  /**
   * Whether a call may go now. While half-open only one trial call is admitted at a time (in Redis
   * the trial's claim lapses after one cooldown, should its replica die); the caller reports the
   * outcome with `success`, `failure` or `release`.
   */
  tryAcquire(): Promise<boolean>;
  /** The call succeeded: the circuit closes and the failure count resets. */
  success(): Promise<void>;
  /** The call failed: counts, and opens the circuit at the threshold (or again, when half-open). */
  failure(): Promise<void>;
  /** The call ended without a verdict on the source's health (e.g. aborted by the caller). */
  release(): Promise<void>;
  status(): Promise<BreakerStatus>;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerStatus {
  state: BreakerState;
  /** Failures since the last success (0 when the source is healthy). */
  consecutiveFailures: number;
  /** Milliseconds until an open circuit lets a trial call through (0 when not open). */
  retryInMs: number;
}

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (default 3). */
  failureThreshold?: number;
  /** How long an open circuit skips the source before one trial call is let through (default 30 s). */
  cooldownMs?: number;
}

/** Hands out the breaker of each source: the same source name means the same breaker. */
export interface CircuitBreakers {
  breaker(source: string, options?: CircuitBreakerOptions): CircuitBreaker;
}

/** The defaults of `CircuitBreakerOptions`, for adapters. */
export function breakerSettings(options: CircuitBreakerOptions = {}): Required<CircuitBreakerOptions> {
  return { failureThreshold: options.failureThreshold ?? 3, cooldownMs: options.cooldownMs ?? 30_000 };
}
