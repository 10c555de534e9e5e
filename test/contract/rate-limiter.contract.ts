import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/ports/clock.js';
import type { RateLimiter, RateLimitPolicy } from '../../src/ports/rate-limiter.js';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** The behaviour every RateLimiter adapter must have. */
export function runRateLimiterContract(
  name: string,
  create: (policy: RateLimitPolicy, clock: ManualClock) => Promise<RateLimiter>,
): void {
  describe(`RateLimiter contract: ${name}`, () => {
    it('allows a burst, then refuses with a retry delay', async () => {
      const clock = new ManualClock();
      const limiter = await create({ perMinute: 60, burst: 3 }, clock);
      const key = `k-${Math.random()}`;
      const decisions = [];
      for (let index = 0; index < 4; index += 1) decisions.push(await limiter.take(key));
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
      expect(decisions[2]?.remaining).toBe(0);
      expect(decisions[3]?.retryAfterSeconds).toBe(1);
      await limiter.close();
    });

    it('refills at the configured rate and keeps keys apart', async () => {
      const clock = new ManualClock();
      const limiter = await create({ perMinute: 30, burst: 1 }, clock);
      const key = `k-${Math.random()}`;
      expect((await limiter.take(key)).allowed).toBe(true);
      const refused = await limiter.take(key);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterSeconds).toBe(2);
      expect((await limiter.take(`${key}-other`)).allowed).toBe(true);
      clock.advance(2000);
      expect((await limiter.take(key)).allowed).toBe(true);
      await limiter.close();
    });
  });
}
