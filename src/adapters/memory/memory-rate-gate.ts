import type { Clock } from '../../ports/clock.js';
import type { RateGate, RateGates } from '../../ports/rate-gate.js';

/** One source's request spacing in process memory: right for one replica. */
export class MemoryRateGate implements RateGate {
  private nextSlot = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  async reserve(maxWaitMs: number): Promise<number | null> {
    return this.reserveNow(maxWaitMs);
  }

  /** `reserve` without the promise (the Redis adapter's fallback calls it). */
  reserveNow(maxWaitMs: number): number | null {
    if (this.intervalMs <= 0) return 0;
    const now = this.clock.now();
    const slot = Math.max(now, this.nextSlot);
    const wait = slot - now;
    if (wait > maxWaitMs) return null;
    this.nextSlot = slot + this.intervalMs;
    return wait;
  }

  async pushBack(untilMs: number): Promise<void> {
    this.nextSlot = Math.max(this.nextSlot, untilMs);
  }

  async waitMs(): Promise<number> {
    return Math.max(0, this.nextSlot - this.clock.now());
  }
}

/** The in-process gates, one per source name. */
export class MemoryRateGates implements RateGates {
  private readonly gates = new Map<string, MemoryRateGate>();

  constructor(private readonly clock: Clock) {}

  gate(source: string, intervalMs: number): MemoryRateGate {
    let gate = this.gates.get(source);
    if (!gate) {
      gate = new MemoryRateGate(intervalMs, this.clock);
      this.gates.set(source, gate);
    }
    return gate;
  }
}
