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
});
