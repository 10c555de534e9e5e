import { Redis } from 'ioredis';
import type { DependencyHealth } from '../../platform/dependency-health.js';

/** How long a Redis command may go unanswered before it fails (a stopped or hung server). */
export const redisCommandTimeoutMs = 1_000;

/**
 * The Redis connection of the cache, rate limits and upstream guards (docs/decisions/0046). Built to
 * fail fast rather than wait: commands are not queued while disconnected (`enableOfflineQueue:
 * false`) and time out after `commandTimeoutMs`, so each caller falls back at once (a miss, a
 * per-process bucket or breaker) instead of hanging for the reconnects. ioredis keeps reconnecting
 * (every 0.2 s, backing off to 2 s); `health` hears of each loss and return. Resolves once connected
 * or after `readyWithinMs` (a process starts degraded when Redis is down, it does not refuse to start).
 */
export async function createRedisConnection(
  url: string,
  options: { health?: DependencyHealth; commandTimeoutMs?: number; readyWithinMs?: number } = {},
): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? redisCommandTimeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  redis.on('error', (error: unknown) => options.health?.failed('redis', 'connection', error));
  redis.on('ready', () => options.health?.answered('redis'));
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, options.readyWithinMs ?? 3_000);
    redis.once('ready', done);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
  });
  return redis;
}
