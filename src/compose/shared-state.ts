import type { Redis } from 'ioredis';
import { MemoryCache } from '../adapters/memory/memory-cache.js';
import { MemoryCircuitBreakers } from '../adapters/memory/memory-circuit-breaker.js';
import { MemoryRateGates } from '../adapters/memory/memory-rate-gate.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { RedisCache } from '../adapters/redis/redis-cache.js';
import { RedisCircuitBreakers } from '../adapters/redis/redis-circuit-breaker.js';
import { RedisRateGates } from '../adapters/redis/redis-rate-gate.js';
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import type { Config } from '../config/load-config.js';
import type { DependencyHealth } from '../platform/dependency-health.js';
import type { Cache } from '../ports/cache.js';
import type { CircuitBreakers } from '../ports/circuit-breaker.js';
import type { Clock } from '../ports/clock.js';
import type { RateGates } from '../ports/rate-gate.js';
import type { RateLimiter } from '../ports/rate-limiter.js';

/** What replicas share through Redis (REDIS_URL), or keep per process without it. */
export interface SharedState {
  redis: Redis | undefined;
  cache: Cache;
  rateLimiter: RateLimiter;
  /** Buckets per client address for requests without a valid key; absent when that limit is off. */
  unauthenticatedRateLimiter: RateLimiter | undefined;
  upstreamGuards: { rateGates: RateGates; breakers: CircuitBreakers };
  /** Closes what this opened, in order. */
  close(): Promise<void>;
}

/**
 * The cache, the API rate limits and the upstream sources' request spacing and circuit breakers:
 * in Redis when REDIS_URL is set (docs/decisions/0021), each falling back to its per-process
 * counterpart while Redis fails, reported to `health` (docs/decisions/0046); in process otherwise.
 */
export async function createSharedState(
  config: Config,
  clock: Clock,
  health: DependencyHealth,
): Promise<SharedState> {
  const redisUrl = config.storage.redisUrl;
  // ioredis is loaded only when REDIS_URL is set (decision 0061).
  const redis = redisUrl
    ? await (await import('../adapters/redis/redis-connection.js')).createRedisConnection(redisUrl, {
        health,
      })
    : undefined;
  const policy = { perMinute: config.auth.rateLimitPerMinute, burst: config.auth.rateLimitBurst };
  const unauthenticatedPolicy = {
    perMinute: config.auth.unauthenticatedRateLimitPerMinute,
    burst: config.auth.unauthenticatedRateLimitBurst,
  };
  const failed = (feature: string) => (error: unknown) => health.failed('redis', feature, error);
  const cache: Cache = redis ? new RedisCache(redis, { onError: failed('cache') }) : new MemoryCache();
  const rateLimiter: RateLimiter = redis
    ? new RedisRateLimiter(redis, policy, clock, undefined, failed('rate_limit'))
    : new MemoryRateLimiter(policy, clock);
  const unauthenticatedRateLimiter: RateLimiter | undefined =
    unauthenticatedPolicy.perMinute === 0
      ? undefined
      : redis
        ? new RedisRateLimiter(
            redis,
            unauthenticatedPolicy,
            clock,
            'alexandria:rate:address:',
            failed('rate_limit'),
          )
        : new MemoryRateLimiter(unauthenticatedPolicy, clock);
  const upstreamGuards = redis
    ? {
        rateGates: new RedisRateGates(redis, clock, { onError: failed('upstream_rate_gate') }),
        breakers: new RedisCircuitBreakers(redis, clock, { onError: failed('upstream_circuit_breaker') }),
      }
    : { rateGates: new MemoryRateGates(clock), breakers: new MemoryCircuitBreakers(clock) };
  return {
    redis,
    cache,
    rateLimiter,
    unauthenticatedRateLimiter,
    upstreamGuards,
    async close() {
      await unauthenticatedRateLimiter?.close();
      await rateLimiter.close();
      await cache.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
