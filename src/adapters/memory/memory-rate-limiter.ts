import type { Clock } from '../../ports/clock.js';
import type { RateDecision, RateLimiter, RateLimitPolicy } from '../../ports/rate-limiter.js';

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Token buckets in process memory: right for one replica; idle full buckets are dropped. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly policy: RateLimitPolicy,
    private readonly clock: Clock,
  ) {}

  async take(key: string, cost = 1): Promise<RateDecision> {
    const now = this.clock.now();
    const ratePerMs = this.policy.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.policy.burst, updatedAt: now };
    bucket.tokens = Math.min(
      this.policy.burst,
      bucket.tokens + Math.max(0, now - bucket.updatedAt) * ratePerMs,
    );
    bucket.updatedAt = now;
    if (this.buckets.size > 100_000) this.sweep(now, ratePerMs);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterSeconds: 0 };
    }
    const waitMs = (cost - bucket.tokens) / ratePerMs;
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  private sweep(now: number, ratePerMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * ratePerMs >= this.policy.burst) {
        this.buckets.delete(key);
      }
    }
  }

  async close(): Promise<void> {
    this.buckets.clear();
  }
}
