/**
 * A shared key-value cache for JSON values with a time-to-live. Misses return undefined; a broken
 * cache must never fail a request, so adapters swallow and log their own I/O errors on `get`/`set`.
 * Adapters: in-process LRU (embedded), Redis (scale-out); both pass `test/contract/cache.contract.ts`.
 */
export interface Cache {
  get<T>(key: string): Promise<T | undefined>;
  /** Stores `value` (JSON-serialisable) for `ttlSeconds` (> 0). */
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Reads through the cache: returns the cached value or computes, stores and returns it. */
export async function cached<T>(
  cache: Cache,
  key: string,
  ttlSeconds: number,
  compute: () => Promise<T>,
): Promise<T> {
  const hit = await cache.get<T>(key);
  if (hit !== undefined) return hit;
  const value = await compute();
  await cache.set(key, value, ttlSeconds);
  return value;
}
