import { LRUCache } from 'lru-cache';

/** A response as it was sent: the serialised body and the headers that go with it. */
export interface CachedResponse {
  body: string;
  headers: Record<string, string>;
}

/**
 * Serialised bodies of recent identical requests, in this process, for a short time. The services
 * cache their results through the Cache port (shared by replicas with Redis); this layer also saves
 * reading that copy back (a JSON parse) and serialising it again, which is most of the cost of a
 * repeated search (measured by `npm run bench -- http`). Only for answers that are the same for
 * every caller: the API key is still checked and rate-limited on every request.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse> | undefined;

  constructor(options: { ttlSeconds: number; maxBytes?: number }) {
    if (options.ttlSeconds <= 0) return;
    this.entries = new LRUCache<string, CachedResponse>({
      max: 5000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
      ttl: options.ttlSeconds * 1000,
    });
  }

  get(key: string): CachedResponse | undefined {
    return this.entries?.get(key);
  }

  set(key: string, response: CachedResponse): void {
    this.entries?.set(key, response);
  }
}
