import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, withKey } from '../helpers/test-app.js';

/**
 * Issue 13: IPv4-compatible IPv6 literals (`http://[::169.254.169.254]/…`, `[::127.0.0.1]`) passed the
 * address guard on every surface that fetches a user's URL. Over HTTP they are a 400 naming the
 * parameter, even with 127.0.0.1/32 opened, and the loopback server is never reached.
 */
describe('SSRF: IPv6 forms of refused IPv4 addresses over HTTP (issue 13)', () => {
  let t: TestApp;
  let server: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits++;
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end('%PDF-1.4\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    t = await createTestApp({ ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES: '127.0.0.1/32' });
  });

  afterAll(async () => {
    await t.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('answers 400 naming pdf_url for /api/fulltext, /api/question and /api/add_to_project', async () => {
    const urls = [
      'http://[::169.254.169.254]/x.pdf',
      `http://[::127.0.0.1]:${port}/x.pdf`,
      `http://[::10.0.0.1]:${port}/x.pdf`,
      `http://[64:ff9b::127.0.0.1]:${port}/x.pdf`,
    ];
    for (const url of urls) {
      const pdfUrl = encodeURIComponent(url);
      for (const path of [
        `/api/fulltext?pdf_url=${pdfUrl}`,
        `/api/question?pdf_url=${pdfUrl}&question=what`,
        `/api/add_to_project?pdf_url=${pdfUrl}`,
      ]) {
        const response = await t.app.inject({ method: 'GET', url: path, headers: withKey(t.key) });
        expect(response.statusCode, `${path}: ${response.body}`).toBe(400);
        const { error } = response.json();
        expect(error).toMatchObject({ code: 'invalid_request', param: 'pdf_url' });
        expect(error.message).toMatch(/^pdf_url is refused: /);
      }
    }
    const metadata = await t.app.inject({
      method: 'GET',
      url: `/api/fulltext?pdf_url=${encodeURIComponent('http://[::169.254.169.254]/x.pdf')}`,
      headers: withKey(t.key),
    });
    expect(metadata.json().error.message).toMatch(/169\.254\.169\.254, a cloud metadata address/);
    expect(hits).toBe(0);
  });
});
