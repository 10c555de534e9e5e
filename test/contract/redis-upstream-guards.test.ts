import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisCircuitBreakers } from '../../src/adapters/redis/redis-circuit-breaker.js';
import { RedisRateGates } from '../../src/adapters/redis/redis-rate-gate.js';
import { UpstreamClient } from '../../src/adapters/sources/shared/upstream-client.js';
import { UpstreamError } from '../../src/domain/errors.js';
import { systemClock } from '../../src/ports/clock.js';
import { SourceSkippedError } from '../../src/ports/paper-source.js';
import { needsRedis } from '../helpers/requirements.js';
import { testRedisUrl } from '../helpers/services.js';
import { ManualClock } from './rate-limiter.contract.js';
import { runUpstreamGuardsContract } from './upstream-guards.contract.js';

// Two connections stand for two replicas: they share nothing but the Redis server.
const redisMissing = await needsRedis();
const replicaA = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
const replicaB = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefix = `test:guards:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  const keys = await replicaA.keys(`${prefix}*`);
  if (keys.length > 0) await replicaA.del(...keys);
  await replicaA.quit();
  await replicaB.quit();
});

const guardsOf = (redis: Redis, clock: ManualClock | typeof systemClock) => ({
  rateGates: new RedisRateGates(redis, clock, { prefix: `${prefix}gate:` }),
  breakers: new RedisCircuitBreakers(redis, clock, { prefix: `${prefix}breaker:` }),
});

describe.skipIf(redisMissing)('on Redis', () => {
  runUpstreamGuardsContract('Redis', (clock) => guardsOf(replicaA, clock));

  async function loopback(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  describe('upstream guards shared by replicas through Redis', () => {
    it('two replicas get slots of one rate together, not one rate each', async () => {
      const clock = new ManualClock();
      const source = `s2-${Math.random()}`;
      const gateA = guardsOf(replicaA, clock).rateGates.gate(source, 1000);
      const gateB = guardsOf(replicaB, clock).rateGates.gate(source, 1000);
      const waits = await Promise.all([
        ...Array.from({ length: 3 }, () => gateA.reserve(60_000)),
        ...Array.from({ length: 3 }, () => gateB.reserve(60_000)),
      ]);
      expect([...waits].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
      expect(await gateB.waitMs()).toBe(6000);
    });

    it('two upstream clients on two replicas send at the source rate together (loopback server clock)', async () => {
      const arrivals: number[] = [];
      const url = await loopback((_request, response) => {
        arrivals.push(performance.now());
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      });
      const source = `arxiv-${Math.random()}`;
      const client = (redis: Redis) =>
        new UpstreamClient({
          source,
          minIntervalMs: 150,
          maxQueueMs: 10_000,
          ...guardsOf(redis, systemClock),
        });
      const [a, b] = [client(replicaA), client(replicaB)];
      await Promise.all(
        Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? a : b).get(`${url}/q${index}`)),
      );
      expect(arrivals).toHaveLength(8);
      const gaps = arrivals.slice(1).map((time, index) => time - (arrivals[index] as number));
      // One shared gate: 7 intervals between the first and the last start (1 050 ms). A gate per
      // replica lets both start together: 3 intervals (450 ms) and 4 gaps near 0. Margins allow for
      // a loaded machine delaying some arrivals.
      expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeGreaterThan(850);
      expect(gaps.filter((gap) => gap < 50).length).toBeLessThanOrEqual(1);
    });

    it('a circuit opened by one replica is open for the other, which sends nothing', async () => {
      let hits = 0;
      const url = await loopback((_request, response) => {
        hits += 1;
        response.writeHead(503);
        response.end();
      });
      const source = `crossref-${Math.random()}`;
      const client = (redis: Redis) =>
        new UpstreamClient({
          source,
          retry: { retries: 0 },
          breaker: { failureThreshold: 2, cooldownMs: 60_000 },
          ...guardsOf(redis, systemClock),
        });
      const [a, b] = [client(replicaA), client(replicaB)];
      await expect(a.get(`${url}/x`)).rejects.toBeInstanceOf(UpstreamError);
      await expect(b.get(`${url}/x`)).rejects.toBeInstanceOf(UpstreamError); // failures count together
      expect(hits).toBe(2);
      expect((await a.breaker.status()).state).toBe('open');
      const skipped = await b.get(`${url}/y`).catch((caught: unknown) => caught);
      expect(skipped).toBeInstanceOf(SourceSkippedError);
      expect((skipped as SourceSkippedError).reason).toBe('circuit_open');
      expect(hits).toBe(2);
    });

    it('lets only one replica run the half-open trial', async () => {
      const clock = new ManualClock();
      const source = `pubmed-${Math.random()}`;
      const options = { failureThreshold: 1, cooldownMs: 5000 };
      const breakerA = guardsOf(replicaA, clock).breakers.breaker(source, options);
      const breakerB = guardsOf(replicaB, clock).breakers.breaker(source, options);
      await breakerA.failure();
      expect(await breakerB.tryAcquire()).toBe(false);
      clock.advance(5000);
      expect(await breakerB.tryAcquire()).toBe(true);
      expect(await breakerA.tryAcquire()).toBe(false);
      await breakerB.success();
      expect(await breakerA.tryAcquire()).toBe(true);
    });

    it('a broken Redis never fails a call: the replica spaces and breaks on its own, reporting the error', async () => {
      const broken = new Redis('redis://127.0.0.1:1', {
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        lazyConnect: true,
        retryStrategy: () => null,
      });
      const errors: unknown[] = [];
      const clock = new ManualClock();
      const onError = (error: unknown) => errors.push(error);
      const gate = new RedisRateGates(broken, clock, { onError }).gate('openalex', 100);
      expect([await gate.reserve(1000), await gate.reserve(1000)]).toEqual([0, 100]);
      const breaker = new RedisCircuitBreakers(broken, clock, { onError }).breaker('openalex', {
        failureThreshold: 1,
      });
      expect(await breaker.tryAcquire()).toBe(true);
      await breaker.failure();
      expect(await breaker.tryAcquire()).toBe(false);
      expect(errors.length).toBeGreaterThanOrEqual(4);
      broken.disconnect();
    });
  });
});
