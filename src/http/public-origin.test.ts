import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type Environment, loadConfig } from '../config/load-config.js';
import { publicUrlOf } from '../config/public-url.js';
import { forwardedHeaderParts, installPublicOrigin, originFrom, varyByOrigin } from './public-origin.js';

describe('originFrom', () => {
  it('builds a normalised origin from a valid scheme and host[:port]', () => {
    expect(originFrom('http', 'papers.example.org:8443')).toBe('http://papers.example.org:8443');
    expect(originFrom('HTTPS', 'Papers.Example.ORG')).toBe('https://papers.example.org');
    expect(originFrom('https', 'papers.example.org:443')).toBe('https://papers.example.org');
    expect(originFrom('http', '10.0.0.7:8080')).toBe('http://10.0.0.7:8080');
    expect(originFrom('http', '[::1]:8080')).toBe('http://[::1]:8080');
    expect(originFrom('http', 'alexandria_web:8080')).toBe('http://alexandria_web:8080');
  });

  it('refuses what is not a host[:port], so it never reaches a link', () => {
    const hostile = [
      'evil.example/x)![a](http://evil.example/p.png',
      'evil.example@papers.example.org',
      'papers.example.org:99999',
      'papers.example.org:',
      'papers example.org',
      '"><script>alert(1)</script>',
      'papers.example.org\r\nx: y',
      '[not-ipv6]',
      '',
      'a'.repeat(300),
    ];
    for (const host of hostile) expect(originFrom('http', host), host).toBeUndefined();
    expect(originFrom('javascript', 'papers.example.org')).toBeUndefined();
    expect(originFrom('ftp', 'papers.example.org')).toBeUndefined();
    expect(originFrom(undefined, 'papers.example.org')).toBeUndefined();
  });
});

describe('forwardedHeaderParts', () => {
  it('reads host and proto of the last element (the nearest proxy), quoted or not', () => {
    expect(forwardedHeaderParts('for=192.0.2.60;proto=https;host=papers.example.org')).toEqual({
      proto: 'https',
      host: 'papers.example.org',
    });
    expect(
      forwardedHeaderParts(
        'host=client-said.example;proto=http, for="[2001:db8::1]";Host="papers.example.org:8443";Proto=https',
      ),
    ).toEqual({ host: 'papers.example.org:8443', proto: 'https' });
    expect(forwardedHeaderParts('for=192.0.2.60')).toEqual({});
    expect(forwardedHeaderParts(undefined)).toEqual({});
  });

  it('keeps separators inside quoted strings', () => {
    expect(forwardedHeaderParts('host="a,b;c";proto=https')).toEqual({ host: 'a,b;c', proto: 'https' });
  });
});

/** A bare Fastify app with the public-origin hooks, whose routes report what services would see. */
async function probeApp(env: Environment): Promise<{ app: FastifyInstance; port: number }> {
  const config = loadConfig({ ALEXANDRIA_LOG_LEVEL: 'silent', ...env });
  const app = Fastify({ trustProxy: config.server.trustProxy });
  installPublicOrigin(app, config);
  // After an await, and (for the POST) after the body arrived in pieces: the scope must still hold.
  app.get('/probe', async (request, reply) => {
    await sleep(1);
    varyByOrigin(reply);
    return { request: request.publicUrl, services: publicUrlOf(config) };
  });
  app.post('/probe', async (request) => {
    await sleep(1);
    return {
      request: request.publicUrl,
      services: publicUrlOf(config),
      size: JSON.stringify(request.body).length,
    };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}

/** A real HTTP request over the socket with the given headers (fetch may not set Host). */
function send(
  port: number,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{
  status: number;
  headers: Record<string, unknown>;
  json: { request: string; services: string };
}> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, path: '/probe', method: options.method ?? 'GET', headers: options.headers },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          text += piece;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, json: JSON.parse(text) }),
        );
      },
    );
    outgoing.on('error', reject);
    if (options.body === undefined) {
      outgoing.end();
      return;
    }
    // The body in two writes with a pause: the handler runs after the second arrives.
    const half = Math.floor(options.body.length / 2);
    outgoing.write(options.body.slice(0, half));
    setTimeout(() => outgoing.end(options.body?.slice(half)), 20);
  });
}

describe('installPublicOrigin over a real socket', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('gives the request and the services it calls the origin of its Host, GET and POST alike', async () => {
    const started = await probeApp({});
    app = started.app;
    const get = await send(started.port, { headers: { host: 'papers.example.org:8443' } });
    expect(get.json).toEqual({
      request: 'http://papers.example.org:8443',
      services: 'http://papers.example.org:8443',
    });
    expect(String(get.headers.vary)).toContain('x-forwarded-host');
    const body = JSON.stringify({ text: 'x'.repeat(64_000) });
    const post = await send(started.port, {
      method: 'POST',
      headers: { host: 'lab.example:9000', 'content-type': 'application/json' },
      body,
    });
    expect(post.json).toMatchObject({
      request: 'http://lab.example:9000',
      services: 'http://lab.example:9000',
    });
    // Concurrent requests for different hosts each see their own.
    const [one, two] = await Promise.all([
      send(started.port, { headers: { host: 'one.example' } }),
      send(started.port, { headers: { host: 'two.example' } }),
    ]);
    expect(one.json.services).toBe('http://one.example');
    expect(two.json.services).toBe('http://two.example');
  });

  it('ignores forwarded headers without trust, and falls back to localhost for a bad Host', async () => {
    const started = await probeApp({ ALEXANDRIA_PORT: '8123' });
    app = started.app;
    const forwarded = await send(started.port, {
      headers: {
        host: 'papers.example.org',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        forwarded: 'host=evil.example;proto=https',
      },
    });
    expect(forwarded.json.services).toBe('http://papers.example.org');
    const bad = await send(started.port, { headers: { host: 'evil.example/x)"<b>' } });
    expect(bad.json).toEqual({ request: 'http://localhost:8123', services: 'http://localhost:8123' });
  });

  it('honours a trusted proxy: Forwarded first, then X-Forwarded-Host/-Proto, each validated', async () => {
    const started = await probeApp({ ALEXANDRIA_TRUST_PROXY: 'true' });
    app = started.app;
    const xForwarded = await send(started.port, {
      headers: {
        host: '127.0.0.1:8080',
        'x-forwarded-host': 'papers.example.org',
        'x-forwarded-proto': 'https',
      },
    });
    expect(xForwarded.json.services).toBe('https://papers.example.org');
    const standard = await send(started.port, {
      headers: {
        host: '127.0.0.1:8080',
        'x-forwarded-host': 'other.example',
        forwarded: 'for=192.0.2.1;host="papers.example.org:8443";proto=https',
      },
    });
    expect(standard.json.services).toBe('https://papers.example.org:8443');
    const hostile = await send(started.port, {
      headers: {
        host: '127.0.0.1:8080',
        'x-forwarded-host': 'evil.example/](x',
        'x-forwarded-proto': 'https',
      },
    });
    expect(hostile.json.services).toBe('http://localhost:8080');
  });

  it('uses ALEXANDRIA_PUBLIC_URL when configured, whatever the headers say', async () => {
    const started = await probeApp({
      ALEXANDRIA_PUBLIC_URL: 'https://alexandria.example.org/',
      ALEXANDRIA_TRUST_PROXY: 'true',
    });
    app = started.app;
    const response = await send(started.port, {
      headers: {
        host: 'papers.example.org',
        'x-forwarded-host': 'other.example',
        'x-forwarded-proto': 'http',
      },
    });
    expect(response.json).toEqual({
      request: 'https://alexandria.example.org',
      services: 'https://alexandria.example.org',
    });
  });
});
