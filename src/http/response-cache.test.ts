import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ResponseCache } from './response-cache.js';

describe('ResponseCache', () => {
  // Soak regression (issue 13): distinct searches, each kept for the TTL, stayed in the LRU after
  // expiring (nobody asked for them again) until it held 5,000 bodies / 64 MB.
  it('drops expired responses that are never asked for again', async () => {
    const cache = new ResponseCache({ ttlSeconds: 1, dataVersion: async () => 'v1' });
    for (let index = 0; index < 200; index += 1) {
      cache.set(await cache.keyFor(`/api/fast_paper_search?query=q${index}`), {
        body: Buffer.from(`[{"title":"Paper ${index}"}]`),
        headers: { 'content-type': 'application/json' },
      });
    }
    expect(cache.size).toBe(200);
    await sleep(1300);
    expect(cache.size).toBe(0);
  });

  it('reads the data version once per event-loop turn, and again in the next turn', async () => {
    let version = 1;
    let reads = 0;
    const cache = new ResponseCache({
      ttlSeconds: 60,
      dataVersion: async () => {
        reads += 1;
        return `v${version}`;
      },
    });
    const sameTurn = await Promise.all([cache.keyFor('a'), cache.keyFor('b'), cache.keyFor('c')]);
    expect(sameTurn).toEqual(['v1|a', 'v1|b', 'v1|c']);
    expect(reads).toBe(1);
    version = 2;
    await new Promise((resolve) => setImmediate(resolve));
    expect(await cache.keyFor('a')).toBe('v2|a');
    expect(reads).toBe(2);
  });

  it('does not keep a failed version read', async () => {
    let fail = true;
    const cache = new ResponseCache({
      ttlSeconds: 60,
      dataVersion: async () => {
        if (fail) throw new Error('index unavailable');
        return 'v1';
      },
    });
    await expect(cache.keyFor('a')).rejects.toThrow('index unavailable');
    fail = false;
    expect(await cache.keyFor('a')).toBe('v1|a');
  });
});
