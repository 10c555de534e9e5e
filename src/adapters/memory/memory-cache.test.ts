import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemoryCache } from './memory-cache.js';

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

const searchAnswer = (index: number) => ({
  papers: [{ title: `Paper ${index}`, abstract: 'x'.repeat(500) }],
  total: 1,
});

describe('MemoryCache', () => {
  // Soak regression (issue 13): a stream of distinct searches, each cached for 60 s, stayed in the
  // LRU after expiring (nothing read them again), so the cache grew to its 10,000-entry / 256 MB
  // bound and the server's RSS with it.
  it('drops expired entries nobody reads again', async () => {
    const clock = manualClock();
    const cache = new MemoryCache({ clock, purgeIntervalMs: 10 });
    for (let index = 0; index < 1000; index += 1) await cache.set(`search:${index}`, searchAnswer(index), 60);
    await cache.set('long-lived', 'kept', 3600);
    expect(cache.usage.entries).toBe(1001);
    clock.advance(61_000);
    await sleep(50); // a few purge rounds
    expect(cache.usage.entries).toBe(1);
    expect(await cache.get('long-lived')).toBe('kept');
    await cache.close();
  });

  it('stays under its size and entry bounds after many distinct keys, the newest kept', async () => {
    const bySize = new MemoryCache({ maxBytes: 100_000, purgeIntervalMs: 0 });
    for (let index = 0; index < 2000; index += 1)
      await bySize.set(`search:${index}`, searchAnswer(index), 60);
    expect(bySize.usage.bytes).toBeLessThanOrEqual(100_000);
    expect(await bySize.get('search:1999')).toEqual(searchAnswer(1999));
    expect(await bySize.get('search:0')).toBeUndefined();
    const byCount = new MemoryCache({ maxEntries: 50, purgeIntervalMs: 0 });
    for (let index = 0; index < 2000; index += 1) await byCount.set(`k${index}`, index, 60);
    expect(byCount.usage.entries).toBe(50);
    await bySize.close();
    await byCount.close();
  });
});
