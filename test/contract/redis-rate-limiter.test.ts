import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisConnection } from '../../src/adapters/redis/redis-connection.js';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { DependencyHealth } from '../../src/platform/dependency-health.js';
import { needsRedis } from '../helpers/requirements.js';
import { testRedisUrl } from '../helpers/services.js';
import { runRateLimiterContract } from './rate-limiter.contract.js';

const redisMissing = await needsRedis();
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

describe.skipIf(redisMissing)('on Redis', () => {
  runRateLimiterContract(
    'Redis',
    async (policy, clock) =>
      new RedisRateLimiter(redis, policy, clock, `test:rate:${Math.random().toString(36).slice(2)}:`),
  );
});

// With Redis stopped every request answered 500 after hanging up to 15 s: the limiter had no
// fallback. Now a take that Redis cannot answer is decided by a bucket of this process, at once.
describe('RedisRateLimiter while Redis is down', () => {
  it('decides by a per-process bucket, says so, and does not hang', async () => {
    const health = new DependencyHealth();
    const down = await createRedisConnection('redis://127.0.0.1:1/0', { health, readyWithinMs: 200 });
    const clock = { now: () => 1_000_000 };
    const errors: unknown[] = [];
    const limiter = new RedisRateLimiter(down, { perMinute: 60, burst: 2 }, clock, 'test:down:', (error) => {
      errors.push(error);
      health.failed('redis', 'rate_limit', error);
    });
    try {
      const started = Date.now();
      const decisions = [await limiter.take('key'), await limiter.take('key'), await limiter.take('key')];
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
      expect(decisions[2]?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(errors).toHaveLength(3);
      expect(health.isDown('redis')).toBe(true);
      expect(health.fallbacks().find((entry) => entry.feature === 'rate_limit')?.count).toBe(3);
    } finally {
      down.disconnect();
    }
  });
});
