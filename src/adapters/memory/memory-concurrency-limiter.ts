import { randomUUID } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { ConcurrencyDecision, ConcurrencyLimiter } from '../../ports/concurrency-limiter.js';

/** Places in process memory (one replica): per key, each held place and when it expires. */
export class MemoryConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly keys = new Map<string, Map<string, number>>();

  constructor(private readonly clock: Clock) {}

  async acquire(key: string, limit: number, ttlMs: number): Promise<ConcurrencyDecision> {
    const now = this.clock.now();
    const places = this.live(key, now);
    if (places.size >= limit) {
      return { granted: false, expiresInMs: Math.max(0, Math.min(...places.values()) - now) };
    }
    const place = randomUUID();
    places.set(place, now + ttlMs);
    this.keys.set(key, places);
    return { granted: true, place };
  }

  async renew(key: string, place: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now();
    const places = this.live(key, now);
    if (!places.has(place)) return false;
    places.set(place, now + ttlMs);
    return true;
  }

  async release(key: string, place: string): Promise<void> {
    const places = this.keys.get(key);
    places?.delete(place);
    if (places?.size === 0) this.keys.delete(key);
  }

  async close(): Promise<void> {
    this.keys.clear();
  }

  /** The key's places that have not expired (expired ones are dropped). */
  private live(key: string, now: number): Map<string, number> {
    const places = this.keys.get(key) ?? new Map<string, number>();
    for (const [place, expiresAt] of places) if (expiresAt <= now) places.delete(place);
    if (places.size === 0) this.keys.delete(key);
    return places;
  }
}
