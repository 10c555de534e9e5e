import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/server.js';
import { FigureLinks } from '../../src/services/documents/figure-links.js';
import { figurePaperPdf } from '../helpers/generated-pdfs.js';
import { multipartBody } from '../helpers/multipart.js';
import { needsRedis } from '../helpers/requirements.js';
import { testRedisUrl } from '../helpers/services.js';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * The HTTP boundary under hostile input (issue 13, decision 0017): malformed multipart bodies, what
 * Node's parser refuses before Fastify runs, the budget of requests without a valid key, and figure
 * links tied to a tenant.
 */
let t: TestApp;

const redisMissing = await needsRedis();

beforeAll(async () => {
  t = await createTestApp({ ALEXANDRIA_PUBLIC_URL: 'http://alexandria.test' });
});
afterAll(async () => {
  await t.close();
});

const uploadRoutes = ['/api/add_to_project', '/api/projects/gpt/import'];

function expectEnvelope(body: unknown, code: string, param: string | null): void {
  expect(body).toEqual({
    error: { message: expect.any(String), type: expect.any(String), code, param },
  });
}

describe('malformed multipart bodies', () => {
  it('multipart without a boundary is a 400 naming file, not a 500', async () => {
    for (const url of uploadRoutes) {
      for (const contentType of [
        'multipart/form-data',
        'multipart/form-data; charset=utf-8',
        'Multipart/Form-Data; boundary=',
        `multipart/form-data; boundary=${'b'.repeat(71)}`,
      ]) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...withKey(t.key), 'content-type': contentType },
          payload: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc\r\n--x--\r\n',
        });
        expect(response.statusCode, `${url} ${contentType}`).toBe(400);
        expectEnvelope(response.json(), 'invalid_request', 'file');
      }
    }
  });

  it('a truncated multipart body is a 400 naming file, not a 500', async () => {
    const { body, contentType } = multipartBody([
      { name: 'file', data: `%PDF-1.4\n${'x'.repeat(5000)}`, filename: 'paper.pdf' },
    ]);
    const truncations = [
      body.subarray(0, body.length - 200), // inside the file
      body.subarray(0, 60), // inside the part's headers
      Buffer.from('no boundary anywhere in this body\r\n'), // the boundary never comes
    ];
    for (const url of uploadRoutes) {
      for (const payload of truncations) {
        const response = await t.app.inject({
          method: 'POST',
          url,
          headers: { ...withKey(t.key), 'content-type': contentType },
          payload,
        });
        expect(response.statusCode, `${url} ${payload.length} bytes`).toBe(400);
        expectEnvelope(response.json(), 'invalid_request', 'file');
        expect(response.json().error.message).toMatch(/multipart/i);
      }
    }
  });

  it('a whole multipart form still works after the guard (quoted boundary too)', async () => {
    const { body, contentType } = multipartBody([
      {
        name: 'file',
        data: '@article{k, title={A Guarded Import}, year={2020}, doi={10.5555/guard}}',
        filename: 'refs.bib',
      },
    ]);
    const quoted = contentType.replace(/boundary=(.*)$/, 'boundary="$1"');
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/projects/gpt/import',
      headers: { ...withKey(t.key), 'content-type': quoted },
      payload: body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().imported).toBe(1);
  });
});

/** Sends raw bytes to the listening server and returns the whole answer (the server closes). */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error) => (chunks.length > 0 ? undefined : reject(error)));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

function parseRaw(answer: string): { status: number; headers: string; body: unknown } {
  const split = answer.indexOf('\r\n\r\n');
  const head = answer.slice(0, split);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    headers: head.toLowerCase(),
    body: JSON.parse(answer.slice(split + 4)),
  };
}

describe("answers of Node's parser and the router", () => {
  let listening: TestApp;
  let port = 0;
  beforeAll(async () => {
    listening = await createTestApp();
    await listening.app.listen({ host: '127.0.0.1', port: 0 });
    port = (listening.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await listening.close();
  });

  it('431 for huge headers comes in the error envelope', async () => {
    const answer = parseRaw(
      await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.headers).toContain('content-type: application/json');
    expect(answer.headers).toContain('connection: close');
    expectEnvelope(answer.body, 'invalid_request', 'headers');
  });

  it('414 for a huge url comes in the error envelope', async () => {
    const answer = parseRaw(
      await rawExchange(port, `GET /api/search?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(answer.status).toBe(414);
    expectEnvelope(answer.body, 'invalid_request', 'url');
  });

  it('a malformed request line is a 400 in the envelope', async () => {
    const answer = parseRaw(await rawExchange(port, 'NOT AN HTTP REQUEST\r\n\r\n'));
    expect(answer.status).toBe(400);
    expectEnvelope(answer.body, 'invalid_request', null);
  });

  it('a path parameter over the router limit is a 400 naming it, not a bare 414', async () => {
    const response = await listening.app.inject({
      method: 'GET',
      url: `/api/projects/${'p'.repeat(600)}`,
      headers: withKey(listening.key),
    });
    expect(response.statusCode).toBe(400);
    expectEnvelope(response.json(), 'invalid_request', 'id');
  });

  it('a url that is not valid percent-encoding is a 400 in the envelope', async () => {
    const response = await listening.app.inject({
      method: 'GET',
      url: '/api/projects/%zz',
      headers: withKey(listening.key),
    });
    expect(response.statusCode).toBe(400);
    expectEnvelope(response.json(), 'invalid_request', 'url');
  });

  it('the server keeps serving after refusing', async () => {
    const answer = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('requests without a valid key are limited per client address', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '6',
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_BURST: '3',
    });
  });
  afterAll(async () => {
    await limited.close();
  });
  const from = (remoteAddress: string, options: Record<string, unknown>) =>
    limited.app.inject({ method: 'GET', remoteAddress, ...options });

  it('a flood of bad keys is throttled: 401 within the budget, then 429 with Retry-After', async () => {
    const statuses = [];
    for (let index = 0; index < 5; index++) {
      const response = await from('203.0.113.10', {
        url: '/api/projects',
        headers: { 'x-alexandria-api-key': `alx_bad_${index}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) {
        expectEnvelope(response.json(), 'rate_limited', null);
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Missing keys share the same budget.
    expect((await from('203.0.113.10', { url: '/api/projects' })).statusCode).toBe(429);
    // A valid key from the same address is not refused, and another address has its own budget.
    const keyed = await from('203.0.113.10', { url: '/api/projects', headers: withKey(limited.key) });
    expect(keyed.statusCode).toBe(200);
    expect((await from('203.0.113.11', { url: '/api/projects' })).statusCode).toBe(401);
  });

  it('figure fetches are throttled too (signed links are opened without a key)', async () => {
    const statuses = [];
    for (let index = 0; index < 4; index++) {
      const url = `/files/figures/${'a'.repeat(64)}/p1-1.png?exp=1&sig=x`;
      statuses.push((await from('198.51.100.7', { url })).statusCode);
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
  });

  it('health, readiness and metrics stay unthrottled', async () => {
    for (let index = 0; index < 3; index++) {
      await from('198.51.100.8', { url: '/openapi.json' });
    }
    expect((await from('198.51.100.8', { url: '/openapi.json' })).statusCode).toBe(429);
    for (const url of ['/healthz', '/readyz', '/metrics', '/healthz?probe=1']) {
      for (let index = 0; index < 5; index++) {
        expect((await from('198.51.100.8', { url })).statusCode, url).toBe(200);
      }
    }
  });

  it('counts an IPv6 client per /64', async () => {
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
      expect((await from(address, { url: '/api/projects' })).statusCode).toBe(401);
    }
    expect((await from('2001:db8:1:2::99', { url: '/api/projects' })).statusCode).toBe(429);
    expect((await from('2001:db8:1:3::1', { url: '/api/projects' })).statusCode).toBe(401);
  });

  it('ignores X-Forwarded-For unless ALEXANDRIA_TRUST_PROXY is set', async () => {
    for (let index = 0; index < 3; index++) {
      await from('192.0.2.50', { url: '/api/projects', headers: { 'x-forwarded-for': `10.9.0.${index}` } });
    }
    const spoofed = await from('192.0.2.50', {
      url: '/api/projects',
      headers: { 'x-forwarded-for': '10.9.0.200' },
    });
    expect(spoofed.statusCode).toBe(429);

    const proxied = await createTestApp({
      ALEXANDRIA_TRUST_PROXY: 'true',
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '6',
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_BURST: '1',
    });
    try {
      const behindProxy = (client: string) =>
        proxied.app.inject({
          method: 'GET',
          url: '/api/projects',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': client },
        });
      expect((await behindProxy('198.51.100.20')).statusCode).toBe(401);
      expect((await behindProxy('198.51.100.20')).statusCode).toBe(429);
      expect((await behindProxy('198.51.100.21')).statusCode).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it('a failing limiter store lets keyless requests through instead of answering 500', async () => {
    const failing = await createHttpApp({
      ...limited.container,
      unauthenticatedRateLimiter: {
        take: () => Promise.reject(new Error('redis down')),
        close: async () => {},
      },
    });
    try {
      const response = await failing.inject({ method: 'GET', url: '/api/projects' });
      expect(response.statusCode).toBe(401);
      expect((await failing.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    } finally {
      await failing.close();
    }
  });

  it('0 turns the limit off', async () => {
    const open = await createTestApp({ ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '0' });
    try {
      for (let index = 0; index < 150; index++) {
        const response = await open.app.inject({ method: 'GET', url: '/api/projects' });
        expect(response.statusCode).toBe(401);
      }
    } finally {
      await open.close();
    }
  });

  it.skipIf(redisMissing)('replicas sharing Redis share the per-address budget', async () => {
    const env = {
      REDIS_URL: testRedisUrl,
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1',
      ALEXANDRIA_UNAUTHENTICATED_RATE_LIMIT_BURST: '2',
    };
    const first = await createTestApp(env);
    const second = await createTestApp(env);
    try {
      // A fresh address per run, so a previous run's bucket in Redis does not count.
      const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
      const ask = (replica: TestApp) =>
        replica.app.inject({ method: 'GET', url: '/api/projects', remoteAddress: address });
      expect((await ask(first)).statusCode).toBe(401);
      expect((await ask(second)).statusCode).toBe(401);
      expect((await ask(first)).statusCode).toBe(429);
      expect((await ask(second)).statusCode).toBe(429);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('figure links', () => {
  let figurePaper: Buffer;
  let link = '';

  beforeAll(async () => {
    figurePaper = await figurePaperPdf();
    const { body, contentType } = multipartBody([
      { name: 'file', data: figurePaper, filename: 'deltas.pdf', contentType: 'application/pdf' },
    ]);
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/add_to_project',
      headers: { ...withKey(t.key), 'content-type': contentType },
      payload: body,
    });
    const pdfId = added.json()[0].pdf_id;
    const read = async (chunk: number) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/fulltext?pdf_id=${pdfId}&chunk=${chunk}`,
          headers: withKey(t.key),
        })
      ).json();
    const total = (await read(1)).total_chunk_num;
    for (let chunk = 1; chunk <= total && !link; chunk++) {
      const found = /\((http:\/\/alexandria\.test\/files\/figures\/[^)]+)\)$/.exec(
        (await read(chunk)).chunks[0].img_mds[0] ?? '',
      );
      link = found?.[1] ?? '';
    }
  }, 120_000);

  it('figure links are tied to the tenant that stores the PDF', async () => {
    const url = new URL(link);
    // The sealed tenant rides in `sig` after the 43-character HMAC; the link does not name it in clear.
    const sig = url.searchParams.get('sig') ?? '';
    expect(sig.length).toBeGreaterThan(43 + 22);
    expect(link).not.toContain('tenant-a');
    const path = `${url.pathname}${url.search}`;
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    // Swapping in another tenant's seal, or dropping it, breaks the signature.
    const [, , , sha256, file] = url.pathname.split('/');
    const signer = new FigureLinks({
      secret: t.container.signingSecret,
      publicUrl: 'http://alexandria.test',
      ttlSeconds: t.container.config.documents.figureUrlTtlSeconds,
    });
    const figureId = (file ?? '').replace(/\.png$/, '');
    const otherSig = new URL(signer.url(sha256 ?? '', figureId, 'png', 'tenant-b')).searchParams.get('sig');
    const swapped = path.replace(sig, `${sig.slice(0, 43)}${otherSig?.slice(43)}`);
    expect((await t.app.inject({ method: 'GET', url: swapped })).statusCode).toBe(403);
    const dropped = path.replace(sig, sig.slice(0, 43));
    expect((await t.app.inject({ method: 'GET', url: dropped })).statusCode).toBe(403);
  });

  it('a validly signed link for a tenant that does not store the PDF finds nothing', async () => {
    const url = new URL(link);
    const [, , , sha256, file] = url.pathname.split('/');
    const signer = new FigureLinks({
      secret: t.container.signingSecret,
      publicUrl: '',
      ttlSeconds: 3600,
    });
    const figureId = (file ?? '').replace(/\.png$/, '');
    const forTenant = (tenant: string) => signer.url(sha256 ?? '', figureId, 'png', tenant);
    expect((await t.app.inject({ method: 'GET', url: forTenant('tenant-a') })).statusCode).toBe(200);
    const stranger = await t.app.inject({ method: 'GET', url: forTenant('tenant-never-uploaded') });
    expect(stranger.statusCode).toBe(404);
    expectEnvelope(stranger.json(), 'not_found', null);
  });

  it('figure links live one to two days by default, not one to two weeks', () => {
    const expires = Number(new URL(link).searchParams.get('exp'));
    const life = expires - Date.now() / 1000;
    expect(life).toBeGreaterThan(86_400 - 60);
    expect(life).toBeLessThanOrEqual(2 * 86_400);
  });
});
