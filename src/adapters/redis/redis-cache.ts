import type { Redis } from 'ioredis';
import type { Cache } from '../../ports/cache.js';

/**
 * The cache shared by every replica, in Redis. Values are JSON strings with an expiry (`SET … EX`).
 * A Redis failure is reported through `onError` and treated as a miss, never as a failed request.
 */
export class RedisCache implements Cache {
  constructor(
    private readonly redis: Redis,
    private readonly options: { prefix?: string; onError?: (error: unknown) => void } = {},
  ) {}

  private key(key: string): string {
    return `${this.options.prefix ?? 'alexandria:cache:'}${key}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    try {
      const text = await this.redis.get(this.key(key));
      return text === null ? undefined : (JSON.parse(text) as T);
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    try {
      await this.redis.set(this.key(key), JSON.stringify(value), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.redis.del(this.key(key));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  async close(): Promise<void> {}
}
