import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Issue 13: a failed `pdf_url` fetch (upstream 404, connection refused, timeout) answered 502/504
 * with `param: null` although the message named `pdf_url`. The envelope now names the parameter
 * the url came from, on every route that fetches one.
 */
let t: TestApp;
let server: Server;
let origin = '';
let refusedOrigin = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/hang.pdf') return; // never answers: the headers timeout fires
    response.writeHead(404);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port that was just free: nothing listens there, so connecting is refused.
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  refusedOrigin = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
  t = await createTestApp({
    ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32',
    ALEXANDRIA_FETCH_HEADERS_TIMEOUT_MS: '300',
    ALEXANDRIA_FETCH_TOTAL_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  await t?.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function errorOf(url: string) {
  const response = await t.app.inject({ method: 'GET', url, headers: withKey(t.key) });
  return {
    status: response.statusCode,
    error: response.json().error as { param: string | null; code: string },
  };
}

describe('pdf_url fetch failures name their parameter', () => {
  const cases = [
    ['an upstream 404', () => `${origin}/missing.pdf`, 502, 'upstream_unavailable'],
    ['a refused connection', () => `${refusedOrigin}/paper.pdf`, 502, 'upstream_unavailable'],
    ['a timeout', () => `${origin}/hang.pdf`, 504, 'timeout'],
  ] as const;
  for (const [name, target, status, code] of cases) {
    it(`${name}: ${status} naming pdf_url on add_to_project and fulltext`, async () => {
      for (const route of ['/api/add_to_project', '/api/fulltext']) {
        const url = encodeURIComponent(target());
        expect(await errorOf(`${route}?pdf_url=${url}`), route).toEqual({
          status,
          error: expect.objectContaining({ code, param: 'pdf_url' }),
        });
      }
    });
  }
});
