import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DependencyHealth } from './dependency-health.js';
import { createLogger } from './logger.js';

describe('DependencyHealth', () => {
  it('logs an outage once when it starts and once when it ends, and counts every fallback', () => {
    const lines: Array<{ msg: string; outageSeconds?: number }> = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    let now = 10_000;
    const health = new DependencyHealth(createLogger({ destination }), () => now);
    for (let request = 0; request < 50; request += 1)
      health.failed('redis', 'rate_limit', new Error('refused'));
    health.failed('redis', 'cache', new Error('refused'));
    now += 20_000;
    health.answered('redis');
    health.answered('redis');
    expect(lines.map((line) => line.msg)).toEqual([
      'redis is unavailable: rate limits fall back to per-process buckets, the shared cache is bypassed, upstream circuit breakers and request spacing are per process, jobs wait until it returns',
      'redis is available again',
    ]);
    expect(lines[1]?.outageSeconds).toBe(20);
    expect(health.isDown('redis')).toBe(false);
    expect(health.fallbacks()).toEqual([
      { dependency: 'redis', feature: 'rate_limit', count: 50 },
      { dependency: 'redis', feature: 'cache', count: 1 },
    ]);
  });
});
