import type { Redis } from 'ioredis';
import type { Clock } from '../../ports/clock.js';
import type { RateDecision, RateLimiter, RateLimitPolicy } from '../../ports/rate-limiter.js';
import { MemoryRateLimiter } from '../memory/memory-rate-limiter.js';

/**
 * Token buckets in Redis, so every replica charges the same bucket. One Lua script refills and takes
 * atomically; the caller's clock is passed in, so all replicas (and tests) agree on time.
 * Returns {allowed (0/1), tokens left ×1000, wait in ms}.
 */
const takeScript = `
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil then tokens = burst; at = now end
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local allowed = 0
local wait = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  wait = math.ceil((cost - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return {allowed, math.floor(tokens * 1000), wait}
`;

/**
 * While Redis fails (down, hung, unreachable) each take is decided by a bucket of this process
 * instead and reported through `onError`: requests keep being answered, each replica enforcing the
 * limit on its own (so N replicas allow up to N times the rate meanwhile).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly fallback: MemoryRateLimiter;

  constructor(
    private readonly redis: Redis,
    private readonly policy: RateLimitPolicy,
    private readonly clock: Clock,
    private readonly prefix = 'alexandria:rate:',
    private readonly onError?: (error: unknown) => void,
  ) {
    this.fallback = new MemoryRateLimiter(policy, clock);
  }

  async take(key: string, cost = 1): Promise<RateDecision> {
    try {
      return await this.takeShared(key, cost);
    } catch (error) {
      this.onError?.(error);
      return this.fallback.take(key, cost);
    }
  }

  private async takeShared(key: string, cost: number): Promise<RateDecision> {
    const ratePerMs = this.policy.perMinute / 60_000;
    const [allowed, milliTokens, waitMs] = (await this.redis.eval(
      takeScript,
      1,
      `${this.prefix}${key}`,
      this.clock.now(),
      ratePerMs,
      this.policy.burst,
      cost,
    )) as [number, number, number];
    return allowed === 1
      ? { allowed: true, remaining: Math.floor(milliTokens / 1000), retryAfterSeconds: 0 }
      : { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  async close(): Promise<void> {}
}
