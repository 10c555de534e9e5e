import type { Redis } from 'ioredis';
import {
  type BreakerStatus,
  breakerSettings,
  type CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakers,
} from '../../ports/circuit-breaker.js';
import type { Clock } from '../../ports/clock.js';
import { MemoryCircuitBreaker } from '../memory/memory-circuit-breaker.js';

/**
 * The breaker of one source is a hash: `failures` (consecutive), `opened` (ms, absent when
 * closed) and `trial` (ms until which a half-open trial call holds the circuit). Every script
 * refreshes the key's expiry, so a breaker nobody touched for a day is forgotten (closed).
 */
const keepMs = 24 * 3600 * 1000;

/** ARGV now, cooldown. Returns 1 when a call may go (claiming the trial when half-open). */
const acquireScript = `
local state = redis.call('HMGET', KEYS[1], 'opened', 'trial')
local opened = tonumber(state[1])
if opened == nil then return 1 end
local now = tonumber(ARGV[1])
local cooldown = tonumber(ARGV[2])
if now - opened < cooldown then return 0 end
local trial = tonumber(state[2])
if trial ~= nil and trial > now then return 0 end
redis.call('HSET', KEYS[1], 'trial', string.format('%.0f', now + cooldown))
redis.call('PEXPIRE', KEYS[1], ${keepMs})
return 1
`;

/** ARGV now, threshold. Counts a failure; opens (again) at the threshold or when half-open. */
const failureScript = `
redis.call('HDEL', KEYS[1], 'trial')
local failures = redis.call('HINCRBY', KEYS[1], 'failures', 1)
if redis.call('HEXISTS', KEYS[1], 'opened') == 1 or failures >= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'opened', ARGV[1])
end
redis.call('PEXPIRE', KEYS[1], ${keepMs})
return failures
`;

/**
 * One source's circuit breaker in Redis, shared by every replica: failures any replica sees count
 * together, and a circuit opened by one replica is open for all. When Redis fails, the breaker
 * reports it through `onError` and decides on this replica's own outcomes meanwhile.
 */
export class RedisCircuitBreaker implements CircuitBreaker {
  private readonly fallback: MemoryCircuitBreaker;
  private readonly failureThreshold: number;
  private readonly cooldownMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly clock: Clock,
    options: CircuitBreakerOptions = {},
    private readonly onError?: (error: unknown) => void,
  ) {
    ({ failureThreshold: this.failureThreshold, cooldownMs: this.cooldownMs } = breakerSettings(options));
    this.fallback = new MemoryCircuitBreaker(clock, options);
  }

  async tryAcquire(): Promise<boolean> {
    try {
      const now = Math.round(this.clock.now());
      return Number(await this.redis.eval(acquireScript, 1, this.key, now, this.cooldownMs)) === 1;
    } catch (error) {
      this.onError?.(error);
      return this.fallback.tryAcquire();
    }
  }

  async success(): Promise<void> {
    await this.fallback.success();
    await this.guard(() => this.redis.del(this.key));
  }

  async failure(): Promise<void> {
    await this.fallback.failure();
    const now = Math.round(this.clock.now());
    await this.guard(() => this.redis.eval(failureScript, 1, this.key, now, this.failureThreshold));
  }

  async release(): Promise<void> {
    await this.fallback.release();
    await this.guard(() => this.redis.hdel(this.key, 'trial'));
  }

  async status(): Promise<BreakerStatus> {
    try {
      const [failures, opened] = await this.redis.hmget(this.key, 'failures', 'opened');
      const consecutiveFailures = Number(failures ?? 0);
      if (opened === null || opened === undefined)
        return { state: 'closed', consecutiveFailures, retryInMs: 0 };
      const retryInMs = Math.max(0, Number(opened) + this.cooldownMs - this.clock.now());
      return { state: retryInMs > 0 ? 'open' : 'half_open', consecutiveFailures, retryInMs };
    } catch (error) {
      this.onError?.(error);
      return this.fallback.status();
    }
  }

  private async guard(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.onError?.(error);
    }
  }
}

/** The breakers in Redis, one key per source (`<prefix><source>`). */
export class RedisCircuitBreakers implements CircuitBreakers {
  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    private readonly options: { prefix?: string; onError?: (error: unknown) => void } = {},
  ) {}

  breaker(source: string, options: CircuitBreakerOptions = {}): RedisCircuitBreaker {
    const key = `${this.options.prefix ?? 'alexandria:breaker:'}${source}`;
    return new RedisCircuitBreaker(this.redis, key, this.clock, options, this.options.onError);
  }
}
