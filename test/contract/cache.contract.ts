import { describe, expect, it } from 'vitest';
import { type Cache, cached } from '../../src/ports/cache.js';

/** The behaviour every Cache adapter must have; `create` returns an empty cache. */
export function runCacheContract(name: string, create: () => Promise<Cache>): void {
  describe(`Cache contract: ${name}`, () => {
    it('stores JSON values and returns copies', async () => {
      const cache = await create();
      const value = { papers: [{ title: 'A', year: 2020 }], total: 1 };
      await cache.set('search:a', value, 60);
      const hit = await cache.get<typeof value>('search:a');
      expect(hit).toEqual(value);
      expect(hit).not.toBe(value);
      expect(await cache.get('search:missing')).toBeUndefined();
      await cache.close();
    });

    it('expires entries after their time-to-live', async () => {
      const cache = await create();
      await cache.set('short', 'soon gone', 1);
      expect(await cache.get('short')).toBe('soon gone');
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(await cache.get('short')).toBeUndefined();
      await cache.close();
    });

    it('deletes entries and reads through with cached()', async () => {
      const cache = await create();
      let calls = 0;
      const compute = async () => {
        calls += 1;
        return { n: calls };
      };
      expect(await cached(cache, 'rt', 60, compute)).toEqual({ n: 1 });
      expect(await cached(cache, 'rt', 60, compute)).toEqual({ n: 1 });
      await cache.delete('rt');
      expect(await cached(cache, 'rt', 60, compute)).toEqual({ n: 2 });
      await cache.close();
    });
  });
}
