import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from '../../ports/clock.js';
import type { ConcurrencyDecision, ConcurrencyLimiter } from '../../ports/concurrency-limiter.js';

/**
 * Takes a place atomically: a sorted set per key, each member a place scored by when it expires.
 * Expired places are dropped first; the caller's clock is passed in so replicas (and tests) agree.
 * Returns {1, 0} when granted, else {0, ms until the earliest place expires}.
 */
const acquireScript = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(0, tonumber(first[2]) - now)}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[4])
-- The set lives as long as its longest place (never shortened by a shorter one).
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {1, 0}
`;

/** Extends a place that has not expired; 1 when it was held. */
const renewScript = `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local expires = redis.call('ZSCORE', KEYS[1], ARGV[3])
if not expires or tonumber(expires) <= now then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

/** Places in Redis, so a tenant's heavy requests are counted across every replica. */
export class RedisConcurrencyLimiter implements ConcurrencyLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly prefix = 'alexandria:places:',
  ) {}

  async acquire(key: string, limit: number, ttlMs: number): Promise<ConcurrencyDecision> {
    const place = randomUUID();
    const [granted, waitMs] = (await this.redis.eval(
      acquireScript,
      1,
      `${this.prefix}${key}`,
      this.clock.now(),
      limit,
      Math.ceil(ttlMs),
      place,
    )) as [number, number];
    return granted === 1 ? { granted: true, place } : { granted: false, expiresInMs: Number(waitMs) };
  }

  async renew(key: string, place: string, ttlMs: number): Promise<boolean> {
    const held = await this.redis.eval(
      renewScript,
      1,
      `${this.prefix}${key}`,
      this.clock.now(),
      Math.ceil(ttlMs),
      place,
    );
    return held === 1;
  }

  async release(key: string, place: string): Promise<void> {
    await this.redis.zrem(`${this.prefix}${key}`, place);
  }

  async close(): Promise<void> {}
}
