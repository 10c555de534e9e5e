import {
  type BreakerStatus,
  breakerSettings,
  type CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakers,
} from '../../ports/circuit-breaker.js';
import type { Clock } from '../../ports/clock.js';

/** One source's circuit breaker in process memory: right for one replica. */
export class MemoryCircuitBreaker implements CircuitBreaker {
  private failures = 0;
  private openedAt: number | null = null;
  private trialInFlight = false;
  private readonly failureThreshold: number;
  private readonly cooldownMs: number;

  constructor(
    private readonly clock: Clock,
    options: CircuitBreakerOptions = {},
  ) {
    ({ failureThreshold: this.failureThreshold, cooldownMs: this.cooldownMs } = breakerSettings(options));
  }

  async tryAcquire(): Promise<boolean> {
    const { state } = this.statusNow();
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  async success(): Promise<void> {
    this.failures = 0;
    this.openedAt = null;
    this.trialInFlight = false;
  }

  async failure(): Promise<void> {
    this.trialInFlight = false;
    this.failures += 1;
    if (this.openedAt !== null || this.failures >= this.failureThreshold) {
      this.openedAt = this.clock.now();
    }
  }

  async release(): Promise<void> {
    this.trialInFlight = false;
  }

  async status(): Promise<BreakerStatus> {
    return this.statusNow();
  }

  private statusNow(): BreakerStatus {
    if (this.openedAt === null) return { state: 'closed', consecutiveFailures: this.failures, retryInMs: 0 };
    const retryInMs = Math.max(0, this.openedAt + this.cooldownMs - this.clock.now());
    return { state: retryInMs > 0 ? 'open' : 'half_open', consecutiveFailures: this.failures, retryInMs };
  }
}

/** The in-process breakers, one per source name. */
export class MemoryCircuitBreakers implements CircuitBreakers {
  private readonly breakers = new Map<string, MemoryCircuitBreaker>();

  constructor(private readonly clock: Clock) {}

  breaker(source: string, options: CircuitBreakerOptions = {}): MemoryCircuitBreaker {
    let breaker = this.breakers.get(source);
    if (!breaker) {
      breaker = new MemoryCircuitBreaker(this.clock, options);
      this.breakers.set(source, breaker);
    }
    return breaker;
  }
}
