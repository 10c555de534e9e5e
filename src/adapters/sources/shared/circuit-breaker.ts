import type { Clock } from '../../../ports/clock.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit (default 3). */
  failureThreshold?: number;
  /** How long an open circuit skips the source before one trial call is let through (default 30 s). */
  cooldownMs?: number;
}

/**
 * A per-source circuit breaker. After `failureThreshold` consecutive failures the source is skipped
 * for `cooldownMs`; then exactly one trial call may go (half-open): success closes the circuit,
 * failure opens it for another cooldown. This is what keeps an offline server fast: once the
 * sources are known to be down, requests skip them instead of waiting for timeouts.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private readonly failureThreshold: number;
  private readonly cooldownMs: number;

  constructor(
    private readonly clock: Clock,
    options: CircuitBreakerOptions = {},
  ) {
    this.failureThreshold = options.failureThreshold ?? 3;
    this.cooldownMs = options.cooldownMs ?? 30_000;
  }

  get state(): BreakerState {
    if (this.openedAt === null) return 'closed';
    return this.clock.now() - this.openedAt >= this.cooldownMs ? 'half_open' : 'open';
  }

  /** Failures since the last success (0 when the source is healthy). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Milliseconds until an open circuit lets a trial call through (0 when not open). */
  get retryInMs(): number {
    if (this.openedAt === null) return 0;
    return Math.max(0, this.openedAt + this.cooldownMs - this.clock.now());
  }

  /**
   * Whether a call may go now. In the half-open state only one trial call is admitted at a time;
   * the caller must report its outcome with `success()` or `failure()`.
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  failure(): void {
    this.trialInFlight = false;
    this.failures += 1;
    if (this.openedAt !== null || this.failures >= this.failureThreshold) {
      this.openedAt = this.clock.now();
    }
  }

  /** A call that ended without a verdict on the source's health (e.g. aborted by the caller). */
  release(): void {
    this.trialInFlight = false;
  }
}
