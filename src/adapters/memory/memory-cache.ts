import { LRUCache } from 'lru-cache';
import type { Cache } from '../../ports/cache.js';

/**
 * In-process cache (one replica). Values are stored as JSON text so that callers get a fresh copy
 * and behave exactly as with the Redis adapter.
 */
export class MemoryCache implements Cache {
  private readonly entries: LRUCache<string, string>;

  constructor(options: { maxEntries?: number; maxBytes?: number } = {}) {
    this.entries = new LRUCache<string, string>({
      max: options.maxEntries ?? 10_000,
      maxSize: options.maxBytes ?? 256 * 1024 * 1024,
      sizeCalculation: (value, key) => value.length + key.length || 1,
    });
  }

  async get<T>(key: string): Promise<T | undefined> {
    const text = this.entries.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    this.entries.set(key, JSON.stringify(value), { ttl: Math.max(1, ttlSeconds) * 1000 });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
