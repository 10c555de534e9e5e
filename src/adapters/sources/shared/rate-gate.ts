import type { Clock } from '../../../ports/clock.js';

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** setTimeout as a promise that rejects with the signal's reason when aborted. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Spaces the starts of requests to one source at least `intervalMs` apart (S2: 1 s per key,
 * arXiv: 3 s), first come first served. A caller that would have to wait longer than
 * `maxWaitMs` is told so at once instead of queueing (the federation then reports the source as
 * skipped rather than blowing its deadline).
 */
export class RateGate {
  private nextSlot = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
    private readonly sleep: Sleep = realSleep,
  ) {}

  /** Milliseconds a caller arriving now would wait. */
  get waitMs(): number {
    return Math.max(0, this.nextSlot - this.clock.now());
  }

  /**
   * Reserves the next slot and waits for it. Returns false (reserving nothing) when the wait
   * would exceed `maxWaitMs`.
   */
  async take(maxWaitMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.intervalMs <= 0) return true;
    const now = this.clock.now();
    const slot = Math.max(now, this.nextSlot);
    const wait = slot - now;
    if (wait > maxWaitMs) return false;
    this.nextSlot = slot + this.intervalMs;
    if (wait > 0) await this.sleep(wait, signal);
    return true;
  }

  /** Pushes the next slot back (a 429 told us to slow down). */
  pushBack(untilMs: number): void {
    this.nextSlot = Math.max(this.nextSlot, untilMs);
  }
}
