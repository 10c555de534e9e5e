import { describe, expect, it } from 'vitest';
import type { ConcurrencyLimiter } from '../../src/ports/concurrency-limiter.js';
import { ManualClock } from './rate-limiter.contract.js';

/** The behaviour every ConcurrencyLimiter adapter must have. */
export function runConcurrencyLimiterContract(
  name: string,
  create: (clock: ManualClock) => Promise<ConcurrencyLimiter>,
): void {
  describe(`ConcurrencyLimiter contract: ${name}`, () => {
    it('grants up to the limit, refuses with the time until the first place expires, and keeps keys apart', async () => {
      const clock = new ManualClock();
      const limiter = await create(clock);
      const key = `k-${Math.random()}`;
      const first = await limiter.acquire(key, 2, 10_000);
      clock.advance(1_000);
      const second = await limiter.acquire(key, 2, 10_000);
      const third = await limiter.acquire(key, 2, 10_000);
      expect(first.granted).toBe(true);
      expect(second.granted).toBe(true);
      expect(third).toEqual({ granted: false, expiresInMs: 9_000 });
      expect((await limiter.acquire(`${key}-other`, 2, 10_000)).granted).toBe(true);
      await limiter.close();
    });

    it('gives a released place to the next caller', async () => {
      const clock = new ManualClock();
      const limiter = await create(clock);
      const key = `k-${Math.random()}`;
      const held = await limiter.acquire(key, 1, 10_000);
      expect((await limiter.acquire(key, 1, 10_000)).granted).toBe(false);
      if (!held.granted) throw new Error('the first place was refused');
      await limiter.release(key, held.place);
      await limiter.release(key, held.place); // twice is harmless
      expect((await limiter.acquire(key, 1, 10_000)).granted).toBe(true);
      await limiter.close();
    });

    it('frees a place whose holder stopped renewing it, and keeps one that is renewed', async () => {
      const clock = new ManualClock();
      const limiter = await create(clock);
      const key = `k-${Math.random()}`;
      const renewed = await limiter.acquire(key, 2, 5_000);
      const abandoned = await limiter.acquire(key, 2, 5_000);
      if (!renewed.granted || !abandoned.granted) throw new Error('a place was refused');
      clock.advance(4_000);
      expect(await limiter.renew(key, renewed.place, 5_000)).toBe(true);
      clock.advance(2_000);
      // The abandoned place expired: one place is free, the renewed one still counts.
      expect(await limiter.renew(key, abandoned.place, 5_000)).toBe(false);
      expect((await limiter.acquire(key, 2, 5_000)).granted).toBe(true);
      expect((await limiter.acquire(key, 2, 5_000)).granted).toBe(false);
      await limiter.close();
    });
  });
}
