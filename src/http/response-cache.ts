import { LRUCache } from 'lru-cache';

/**
 * A response as it was sent: the serialised body, encoded once (UTF-8), and the headers that go with
 * it. A Buffer, not a string: a replay then costs no UTF-8 encoding and no length scan of the text
 * (Content-Length of a string is counted per request), a third of a cached search's CPU (decision 0053).
 */
export interface CachedResponse {
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * Serialised bodies of recent identical requests, in this process, for a short time. The services
 * cache their results through the Cache port (shared by replicas with Redis); this layer also saves
 * reading that copy back (a JSON parse) and serialising it again, which is most of the cost of a
 * repeated search (measured by `npm run bench -- http`). Only for answers that are the same for
 * every caller: the API key is still checked and rate-limited on every request. Keys carry the
 * index's data version (`keyFor`), so an ingest, by this process or another, ends every answer
 * cached before it.
 */
export class ResponseCache {
  private readonly entries: LRUCache<string, CachedResponse> | undefined;
  private readonly dataVersion: () => Promise<string>;
  /** The data version read in this turn of the event loop (see keyFor). */
  private versionThisTurn: Promise<string> | undefined;

  /** `dataVersion`: the paper index's (PaperIndex.dataVersion). */
  constructor(options: { ttlSeconds: number; maxBytes?: number; dataVersion: () => Promise<string> }) {
    this.dataVersion = options.dataVersion;
    if (options.ttlSeconds <= 0) return;
    this.entries = new LRUCache<string, CachedResponse>({
      max: 5000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
      ttl: options.ttlSeconds * 1000,
      // Expired answers are dropped on time: otherwise an LRU keeps them until the bounds push them
      // out, and a stream of distinct searches filled it to 64 MB whatever the TTL (soak, issue 13).
      ttlAutopurge: true,
    });
  }

  /** Responses held (tests). */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  /**
   * The key to get and set the answer to `requestKey` under: prefixed with the index's current data
   * version. Take it before computing the answer, so that an answer is never stored under a version
   * newer than the data it was computed from.
   */
  async keyFor(requestKey: string): Promise<string> {
    if (!this.entries) return requestKey;
    return `${await this.currentVersion()}|${requestKey}`;
  }

  /**
   * The index's data version, read once per turn of the event loop: requests that arrive in one
   * batch of I/O share one read (an SQLite statement, ~15 µs; a tenth of a cached search, decision
   * 0053). A write that completes in the same turn is concurrent with those requests; the next turn
   * reads again, so an ingest still ends every answer cached before it.
   */
  private currentVersion(): Promise<string> {
    if (this.versionThisTurn === undefined) {
      const version = this.dataVersion();
      this.versionThisTurn = version;
      setImmediate(() => {
        if (this.versionThisTurn === version) this.versionThisTurn = undefined;
      });
      // A failed read is not kept: the next request tries again.
      version.catch(() => {
        if (this.versionThisTurn === version) this.versionThisTurn = undefined;
      });
    }
    return this.versionThisTurn;
  }

  get(key: string): CachedResponse | undefined {
    return this.entries?.get(key);
  }

  set(key: string, response: CachedResponse): void {
    this.entries?.set(key, response);
  }
}
