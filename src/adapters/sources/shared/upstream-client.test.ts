import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { replayFetch } from '../../../../test/fakes/recorded-fetch.js';
import { UpstreamError } from '../../../domain/errors.js';
import { SourceSkippedError } from '../../../ports/paper-source.js';
import { MemoryCache } from '../../memory/memory-cache.js';
import { parseRetryAfter } from './retry-policy.js';
import { UpstreamClient } from './upstream-client.js';

/** A clock the test moves by hand; `sleep` advances it instead of waiting. */
function manualTime(start = 1_000_000) {
  const time = { now: start, slept: [] as number[] };
  return {
    time,
    clock: { now: () => time.now },
    sleep: async (ms: number) => {
      time.slept.push(ms);
      time.now += ms;
    },
  };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function loopback(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const okSchema = z.object({ ok: z.boolean() });

describe('UpstreamClient', () => {
  it('waits for Retry-After on a 429 from a loopback server, then retries and succeeds', async () => {
    let hits = 0;
    const url = await loopback((_request, response) => {
      hits += 1;
      if (hits === 1) {
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        response.end('{"message":"Too Many Requests"}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    const client = new UpstreamClient({ source: 'fake', timeoutMs: 2000 });
    const started = performance.now();
    expect(await client.getJson(`${url}/works`, okSchema)).toEqual({ ok: true });
    const elapsed = performance.now() - started;
    expect(hits).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    // Measured: 1.07 s. The bound only says it did not wait on after the one second asked for.
    expect(elapsed).toBeLessThan(11_000);
    expect((await client.breaker.status()).state).toBe('closed');
  });

  it('gives up at once when Retry-After is longer than it may wait, keeping the wait in the error', async () => {
    const { clock, sleep, time } = manualTime();
    const fetch = replayFetch([
      { match: /./, respond: { status: 429, body: '', headers: { 'retry-after': '120' } } },
    ]);
    const client = new UpstreamClient({ source: 'fake', fetch, clock, sleep });
    const error = await client.get('https://api.example.org/x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).upstreamStatus).toBe(429);
    expect((error as UpstreamError).retryAfterSeconds).toBe(120);
    expect(fetch.calls).toHaveLength(1);
    expect(time.slept).toEqual([]);
  });

  it('retries 503s with exponential backoff and jitter, then succeeds', async () => {
    const { clock, sleep, time } = manualTime();
    let calls = 0;
    const fetch = replayFetch([
      {
        match: /./,
        respond: () => (++calls < 3 ? { status: 503, body: 'busy' } : { status: 200, body: '{"ok":true}' }),
      },
    ]);
    const client = new UpstreamClient({ source: 'fake', fetch, clock, sleep, random: () => 0.5 });
    expect(await client.getJson('https://api.example.org/x', okSchema)).toEqual({ ok: true });
    // base 300 ms doubling; equal jitter with random 0.5 gives 3/4 of each step
    expect(time.slept).toEqual([225, 450]);
  });

  it('times out a hanging loopback server per attempt', async () => {
    const url = await loopback(() => {
      /* never answers */
    });
    const client = new UpstreamClient({ source: 'fake', timeoutMs: 200, retry: { retries: 0 } });
    const started = performance.now();
    const error = await client.get(`${url}/hang`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).code).toBe('timeout');
    // Measured: 0.2 s; the server never answers.
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it('opens the circuit after three failed calls, skips without traffic, then closes after a good trial', async () => {
    const { clock, sleep, time } = manualTime();
    let healthy = false;
    const fetch = replayFetch([
      {
        match: /./,
        respond: () => (healthy ? { status: 200, body: '{"ok":true}' } : { status: 500, body: '' }),
      },
    ]);
    const client = new UpstreamClient({
      source: 'fake',
      fetch,
      clock,
      sleep,
      retry: { retries: 0 },
      breaker: { failureThreshold: 3, cooldownMs: 30_000 },
    });
    for (let index = 0; index < 3; index += 1) {
      await expect(client.get('https://api.example.org/x')).rejects.toBeInstanceOf(UpstreamError);
    }
    expect((await client.breaker.status()).state).toBe('open');
    const skipped = await client.get('https://api.example.org/x').catch((caught: unknown) => caught);
    expect(skipped).toBeInstanceOf(SourceSkippedError);
    expect((skipped as SourceSkippedError).reason).toBe('circuit_open');
    expect(fetch.calls).toHaveLength(3);

    time.now += 30_000;
    expect((await client.breaker.status()).state).toBe('half_open');
    // a failed trial re-opens the circuit for another cooldown
    await expect(client.get('https://api.example.org/x')).rejects.toBeInstanceOf(UpstreamError);
    expect((await client.breaker.status()).state).toBe('open');
    time.now += 30_000;
    healthy = true;
    expect(await client.getJson('https://api.example.org/x', okSchema)).toEqual({ ok: true });
    expect((await client.breaker.status()).state).toBe('closed');
    expect(fetch.calls).toHaveLength(5);
  });

  it('does not count 400 or 404 answers against the source', async () => {
    const fetch = replayFetch([
      { match: /missing/, respond: { status: 404, body: '{"error":"not found"}' } },
      { match: /bad/, respond: { status: 400, body: '{"error":"bad"}' } },
    ]);
    const client = new UpstreamClient({ source: 'fake', fetch, retry: { retries: 0 } });
    for (let index = 0; index < 4; index += 1) {
      expect(await client.getJson('https://api.example.org/missing', okSchema)).toBeNull();
      await expect(client.get('https://api.example.org/bad')).rejects.toMatchObject({ upstreamStatus: 400 });
    }
    expect((await client.breaker.status()).state).toBe('closed');
  });

  it('spaces requests by the rate interval and skips a caller that would queue too long', async () => {
    const slept: number[] = [];
    const clock = { now: () => 5_000_000 }; // frozen: concurrent callers queue behind each other
    const sleep = async (ms: number) => {
      slept.push(ms);
    };
    const fetch = replayFetch([{ match: /./, respond: { status: 200, body: '{"ok":true}' } }]);
    const client = new UpstreamClient({
      source: 'fake',
      fetch,
      clock,
      sleep,
      minIntervalMs: 1000,
      maxQueueMs: 1500,
    });
    const outcomes = await Promise.allSettled([
      client.get('https://api.example.org/1'),
      client.get('https://api.example.org/2'),
      client.get('https://api.example.org/3'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(slept).toEqual([1000]);
    const error = (outcomes[2] as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(SourceSkippedError);
    expect((error as SourceSkippedError).reason).toBe('rate_limited');
    expect(fetch.calls).toHaveLength(2);
  });

  it('serves repeated calls, 404s included, from the cache', async () => {
    const fetch = replayFetch([
      { match: /found/, respond: { status: 200, body: '{"ok":true}' } },
      { match: /gone/, respond: { status: 404, body: 'Resource not found.' } },
    ]);
    const client = new UpstreamClient({
      source: 'fake',
      fetch,
      cache: new MemoryCache(),
      cacheTtlSeconds: 60,
    });
    for (let index = 0; index < 3; index += 1) {
      expect(await client.getJson('https://api.example.org/found', okSchema)).toEqual({ ok: true });
      expect(await client.getText('https://api.example.org/gone')).toBeNull();
    }
    expect(fetch.calls).toHaveLength(2);
  });

  it('rejects a body that does not match the wire schema', async () => {
    const fetch = replayFetch([{ match: /./, respond: { status: 200, body: '{"ok":"yes"}' } }]);
    const client = new UpstreamClient({ source: 'fake', fetch });
    await expect(client.getJson('https://api.example.org/x', okSchema)).rejects.toThrow(/unexpected shape/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('UpstreamClient retries under a rate limit', () => {
  it('counts a failure whose retry cannot get a rate slot in time against the source', async () => {
    const slept: number[] = [];
    const fetch = replayFetch([{ match: /./, respond: { status: 503, body: '' } }]);
    const client = new UpstreamClient({
      source: 'fake',
      fetch,
      clock: { now: () => 7_000_000 },
      sleep: async (ms: number) => {
        slept.push(ms);
      },
      minIntervalMs: 3000,
      maxQueueMs: 1000,
      random: () => 0.5,
      breaker: { failureThreshold: 1 },
    });
    const error = await client.get('https://api.example.org/x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).not.toBeInstanceOf(SourceSkippedError);
    expect((error as UpstreamError).upstreamStatus).toBe(503);
    expect((await client.breaker.status()).state).toBe('open');
    expect(fetch.calls).toHaveLength(1);
  });
});
