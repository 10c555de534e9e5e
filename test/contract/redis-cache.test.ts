import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { RedisCache } from '../../src/adapters/redis/redis-cache.js';
import { testRedisUrl } from '../helpers/services.js';
import { runCacheContract } from './cache.contract.js';

const redis = new Redis(testRedisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

runCacheContract(
  'Redis',
  async () => new RedisCache(redis, { prefix: `test:${Math.random().toString(36).slice(2)}:` }),
);
