import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UndiciUrlFetcher } from '../../src/adapters/http-fetch/undici-url-fetcher.js';
import { AppError } from '../../src/domain/errors.js';
import { runUrlFetcherContract } from './url-fetcher.contract.js';

describe('UndiciUrlFetcher', () => {
  runUrlFetcherContract((options) => new UndiciUrlFetcher({ ...options, userAgent: 'alexandria-test' }));
});

/**
 * Issue 13: IPv4-compatible IPv6 literals (`[::127.0.0.1]`, which WHATWG URL writes `[::7f00:1]`)
 * and other IPv6 forms carrying a refused IPv4 address passed the guard and reached connect().
 * Even with 127.0.0.1/32 opened, none of them may reach the loopback server.
 */
describe('UndiciUrlFetcher: IPv6 forms carrying a refused IPv4 address (issue 13)', () => {
  let server: Server;
  let port = 0;
  const seen: string[] = [];
  let fetcher: UndiciUrlFetcher;

  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push(request.url ?? '');
      const target = /^\/to\/(.+)$/.exec(request.url ?? '');
      if (target) {
        response.writeHead(302, { location: decodeURIComponent(target[1] as string) });
        return response.end();
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    fetcher = new UndiciUrlFetcher({
      maxBytes: 1024 * 1024,
      maxRedirects: 3,
      headersTimeoutMs: 1_000,
      bodyTimeoutMs: 1_000,
      totalTimeoutMs: 3_000,
      allowedPrivateRanges: ['127.0.0.1/32'],
      userAgent: 'alexandria-test',
    });
  });

  afterAll(async () => {
    await fetcher.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  afterEach(() => {
    vi.restoreAllMocks();
    seen.length = 0;
  });

  /** Records every outgoing connection (and lets only 127.0.0.1 through, as a safety net). */
  function watchConnections(): string[] {
    const targets: string[] = [];
    const original = net.connect.bind(net) as (...args: unknown[]) => net.Socket;
    vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
      const host = String((args[0] as { host?: string })?.host ?? '');
      targets.push(host);
      if (host !== '127.0.0.1') throw new Error(`test safety net: refused to connect to ${host}`);
      return original(...args);
    }) as typeof net.connect);
    return targets;
  }

  async function refusal(url: string): Promise<AppError> {
    const error = await fetcher.fetch(url, { param: 'pdf_url' }).then(
      () => new Error(`${url} was fetched`),
      (caught: unknown) => caught,
    );
    expect(error, url).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('invalid_request');
    expect((error as AppError).param).toBe('pdf_url');
    return error as AppError;
  }

  const carriers = (p: number) => [
    `http://[::127.0.0.1]:${p}/`,
    `http://[::7f00:1]:${p}/`,
    `http://[0:0:0:0:0:0:127.0.0.1]:${p}/`,
    `http://[::169.254.169.254]:${p}/latest/meta-data/`,
    `http://[::10.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[2002:7f00:1::]:${p}/`,
    `http://[::ffff:0:127.0.0.1]:${p}/`,
    `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${p}/`,
  ];

  it('refuses http://[::127.0.0.1]:PORT/ and its kin before connecting; the server sees nothing', async () => {
    const targets = watchConnections();
    for (const url of carriers(port)) {
      expect((await refusal(url)).message).toMatch(/pdf_url is refused/);
    }
    expect(targets).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('refuses a redirect from the opened loopback server to any of them', async () => {
    const targets = watchConnections();
    for (const location of carriers(port)) {
      const error = await refusal(`http://127.0.0.1:${port}/to/${encodeURIComponent(location)}`);
      expect(error.message).toMatch(/refused: .* \(redirect from 127\.0\.0\.1:\d+\)$/);
    }
    // Only the first hop of each fetch reached the server; no connection went anywhere else.
    expect(seen).toHaveLength(carriers(port).length);
    expect(seen.every((path) => path.startsWith('/to/'))).toBe(true);
    expect(new Set(targets)).toEqual(new Set(['127.0.0.1']));
  });

  it('still fetches the opened address itself, in any IPv4 notation', async () => {
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '[::ffff:127.0.0.1]']) {
      const fetched = await fetcher.fetch(`http://${host}:${port}/ok`);
      expect(Buffer.from(fetched.bytes).toString()).toBe('reached');
    }
    expect(seen).toHaveLength(5);
  });
});
