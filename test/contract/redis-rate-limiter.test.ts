import { Redis } from 'ioredis';
import { afterAll, describe } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
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
