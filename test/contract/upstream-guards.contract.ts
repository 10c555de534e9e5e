import { describe, expect, it } from 'vitest';
import type { CircuitBreakers } from '../../src/ports/circuit-breaker.js';
import type { RateGates } from '../../src/ports/rate-gate.js';
import { ManualClock } from './rate-limiter.contract.js';

/** What an adapter pair of the upstream guards hands out, on a clock the test moves. */
export interface UpstreamGuards {
  rateGates: RateGates;
  breakers: CircuitBreakers;
}

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

/** The behaviour every RateGates and CircuitBreakers adapter must have. */
export function runUpstreamGuardsContract(
  name: string,
  create: (clock: ManualClock) => UpstreamGuards,
): void {
  describe(`RateGate contract: ${name}`, () => {
    it('hands out slots one interval apart and refuses a caller that would wait too long', async () => {
      const clock = new ManualClock();
      const gate = create(clock).rateGates.gate(unique('source'), 1000);
      expect([await gate.reserve(5000), await gate.reserve(5000), await gate.reserve(5000)]).toEqual([
        0, 1000, 2000,
      ]);
      expect(await gate.reserve(2500)).toBeNull();
      expect(await gate.waitMs()).toBe(3000);
      clock.advance(2500);
      expect(await gate.reserve(600)).toBe(500);
      clock.advance(10_000);
      expect(await gate.reserve(0)).toBe(0);
    });

    it('waits for a pushed-back slot, keeps sources apart and admits everything at interval 0', async () => {
      const clock = new ManualClock();
      const guards = create(clock);
      const source = unique('source');
      const gate = guards.rateGates.gate(source, 100);
      await gate.pushBack(clock.now() + 30_000);
      await gate.pushBack(clock.now() + 5_000); // never earlier than a slot already pushed back
      expect(await gate.waitMs()).toBe(30_000);
      expect(await gate.reserve(1000)).toBeNull();
      expect(await guards.rateGates.gate(source, 100).reserve(40_000)).toBe(30_000);
      expect(await guards.rateGates.gate(unique('other'), 100).reserve(0)).toBe(0);
      const open = guards.rateGates.gate(unique('open'), 0);
      expect([await open.reserve(0), await open.reserve(0)]).toEqual([0, 0]);
    });
  });

  describe(`CircuitBreaker contract: ${name}`, () => {
    it('opens after the threshold, skips during the cooldown, lets one trial through, closes on success', async () => {
      const clock = new ManualClock();
      const breaker = create(clock).breakers.breaker(unique('source'), {
        failureThreshold: 2,
        cooldownMs: 10_000,
      });
      expect(await breaker.status()).toEqual({ state: 'closed', consecutiveFailures: 0, retryInMs: 0 });
      expect(await breaker.tryAcquire()).toBe(true);
      await breaker.failure();
      expect(await breaker.status()).toEqual({ state: 'closed', consecutiveFailures: 1, retryInMs: 0 });
      await breaker.failure();
      expect(await breaker.status()).toEqual({ state: 'open', consecutiveFailures: 2, retryInMs: 10_000 });
      expect(await breaker.tryAcquire()).toBe(false);
      clock.advance(4_000);
      expect((await breaker.status()).retryInMs).toBe(6_000);
      clock.advance(6_000);
      expect((await breaker.status()).state).toBe('half_open');
      expect(await breaker.tryAcquire()).toBe(true);
      expect(await breaker.tryAcquire()).toBe(false); // one trial at a time
      await breaker.failure(); // the trial failed: open for another cooldown
      expect(await breaker.status()).toMatchObject({ state: 'open', retryInMs: 10_000 });
      clock.advance(10_000);
      expect(await breaker.tryAcquire()).toBe(true);
      await breaker.success();
      expect(await breaker.status()).toEqual({ state: 'closed', consecutiveFailures: 0, retryInMs: 0 });
      expect(await breaker.tryAcquire()).toBe(true);
    });

    it('frees the trial on release, resets the count on success, keeps sources apart', async () => {
      const clock = new ManualClock();
      const guards = create(clock);
      const source = unique('source');
      const breaker = guards.breakers.breaker(source, { failureThreshold: 1, cooldownMs: 1000 });
      await breaker.failure();
      clock.advance(1000);
      expect(await breaker.tryAcquire()).toBe(true);
      expect(await breaker.tryAcquire()).toBe(false);
      await breaker.release();
      expect(await breaker.tryAcquire()).toBe(true);
      await breaker.success();
      expect((await guards.breakers.breaker(source).status()).state).toBe('closed');
      const other = guards.breakers.breaker(unique('other'), { failureThreshold: 3 });
      await breaker.failure();
      expect((await guards.breakers.breaker(source).status()).state).toBe('open');
      expect(await other.status()).toEqual({ state: 'closed', consecutiveFailures: 0, retryInMs: 0 });
    });
  });
}
