import { LRUCache } from 'lru-cache';
import type { Cache } from '../../ports/cache.js';
import { type Clock, systemClock } from '../../ports/clock.js';

export interface MemoryCacheOptions {
  /** Most entries kept (default 10,000). */
  maxEntries?: number;
  /** Most characters of keys and JSON values kept (default 256 MB). */
  maxBytes?: number;
  /** How often expired entries are dropped, in ms (default 30 s; 0 = only when read or evicted). */
  purgeIntervalMs?: number;
  /** Time source of the time-to-live (tests). */
  clock?: Clock;
}

/**
 * In-process cache (one replica). Values are stored as JSON text so that callers get a fresh copy
 * and behave exactly as with the Redis adapter.
 *
 * Expired entries are dropped every `purgeIntervalMs`: an LRU forgets an expired entry only when it
 * is read again or pushed out by the bounds, so a stream of distinct keys (searches) used to keep
 * every answer until the cache held its 10,000 entries / 256 MB, however short their time-to-live
 * (the soak's server grew by that much). With the purge, the cache holds what the time-to-live keeps.
 */
export class MemoryCache implements Cache {
  private readonly entries: LRUCache<string, string>;
  private readonly purge: NodeJS.Timeout | undefined;

  constructor(options: MemoryCacheOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.entries = new LRUCache<string, string>({
      max: options.maxEntries ?? 10_000,
      maxSize: options.maxBytes ?? 256 * 1024 * 1024,
      sizeCalculation: (value, key) => value.length + key.length || 1,
      perf: { now: () => clock.now() },
    });
    const intervalMs = options.purgeIntervalMs ?? 30_000;
    if (intervalMs > 0) {
      this.purge = setInterval(() => this.entries.purgeStale(), intervalMs);
      this.purge.unref();
    }
  }

  /** Entries held and their size (characters of keys and values), expired ones not yet dropped included. */
  get usage(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
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
    clearInterval(this.purge);
    this.entries.clear();
  }
}
