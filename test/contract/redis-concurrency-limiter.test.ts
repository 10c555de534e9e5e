import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { RedisConcurrencyLimiter } from '../../src/adapters/redis/redis-concurrency-limiter.js';
import { testRedisUrl } from '../helpers/services.js';
import { runConcurrencyLimiterContract } from './concurrency-limiter.contract.js';

const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

runConcurrencyLimiterContract(
  'Redis',
  async (clock) =>
    new RedisConcurrencyLimiter(redis, clock, `test:places:${Math.random().toString(36).slice(2)}:`),
);
