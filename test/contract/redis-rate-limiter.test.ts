import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/redis/redis-rate-limiter.js';
import { testRedisUrl } from '../helpers/services.js';
import { runRateLimiterContract } from './rate-limiter.contract.js';

const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

runRateLimiterContract(
  'Redis',
  async (policy, clock) =>
    new RedisRateLimiter(redis, policy, clock, `test:rate:${Math.random().toString(36).slice(2)}:`),
);
