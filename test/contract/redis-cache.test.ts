import { Redis } from 'ioredis';
import { afterAll, describe } from 'vitest';
import { RedisCache } from '../../src/adapters/redis/redis-cache.js';
import { needsRedis } from '../helpers/requirements.js';
import { testRedisUrl } from '../helpers/services.js';
import { runCacheContract } from './cache.contract.js';

const redisMissing = await needsRedis();
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
afterAll(() => redis.quit());

describe.skipIf(redisMissing)('on Redis', () => {
  runCacheContract(
    'Redis',
    async () => new RedisCache(redis, { prefix: `test:${Math.random().toString(36).slice(2)}:` }),
  );
});
