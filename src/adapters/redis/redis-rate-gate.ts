import type { Redis } from 'ioredis';
import type { Clock } from '../../ports/clock.js';
import type { RateGate, RateGates } from '../../ports/rate-gate.js';
import { MemoryRateGate } from '../memory/memory-rate-gate.js';

/**
 * Reserves a slot atomically: KEYS[1] holds the next free start (ms); ARGV now, interval, longest
 * wait. Returns the wait (≥ 0), or -1 when it would be longer than allowed (nothing reserved).
 */
const reserveScript = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local wait = slot - now
if wait > limit then return -1 end
redis.call('SET', KEYS[1], string.format('%.0f', slot + interval), 'PX', math.ceil(wait + interval + 60000))
return wait
`;

/** Moves the next free start (KEYS[1]) to ARGV[2] at the earliest; ARGV[1] is now. */
const pushBackScript = `
local now = tonumber(ARGV[1])
local target = tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if target > current then
  redis.call('SET', KEYS[1], string.format('%.0f', target), 'PX', math.ceil(math.max(0, target - now) + 60000))
end
return 0
`;

/**
 * One source's request spacing in Redis, shared by every replica: N replicas together start at most
 * one request per interval. The callers' clocks are used (replicas' clocks agree to NTP precision).
 * When Redis fails, the gate reports it through `onError` and spaces this replica's requests alone.
 */
export class RedisRateGate implements RateGate {
  private readonly fallback: MemoryRateGate;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly intervalMs: number,
    private readonly clock: Clock,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.fallback = new MemoryRateGate(intervalMs, clock);
  }

  async reserve(maxWaitMs: number): Promise<number | null> {
    if (this.intervalMs <= 0) return 0;
    try {
      const now = Math.round(this.clock.now());
      const limit = Number.isFinite(maxWaitMs) ? Math.max(0, Math.floor(maxWaitMs)) : 2 ** 52;
      const wait = Number(
        await this.redis.eval(reserveScript, 1, this.key, now, Math.round(this.intervalMs), limit),
      );
      return wait < 0 ? null : wait;
    } catch (error) {
      this.onError?.(error);
      return this.fallback.reserveNow(maxWaitMs);
    }
  }

  async pushBack(untilMs: number): Promise<void> {
    await this.fallback.pushBack(untilMs);
    try {
      await this.redis.eval(pushBackScript, 1, this.key, Math.round(this.clock.now()), Math.round(untilMs));
    } catch (error) {
      this.onError?.(error);
    }
  }

  async waitMs(): Promise<number> {
    try {
      const next = Number((await this.redis.get(this.key)) ?? 0);
      return Math.max(0, next - this.clock.now());
    } catch (error) {
      this.onError?.(error);
      return this.fallback.waitMs();
    }
  }
}

/** The gates in Redis, one key per source (`<prefix><source>`). */
export class RedisRateGates implements RateGates {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly options: { prefix?: string; onError?: (error: unknown) => void } = {},
  ) {}

  gate(source: string, intervalMs: number): RedisRateGate {
    const key = `${this.options.prefix ?? 'alexandria:gate:'}${source}`;
    return new RedisRateGate(this.redis, key, intervalMs, this.clock, this.options.onError);
  }
}
