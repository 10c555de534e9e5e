import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { UrlFetcher } from '../../src/ports/url-fetcher.js';
import { figurePaperPdf } from '../helpers/generated-pdfs.js';

/** Limits every fetcher under test gets (small, so the limit tests are quick). */
export interface FetcherTestOptions {
  /** CIDRs opened on purpose; `[]` = production behaviour. */
  allowedPrivateRanges: string[];
  maxBytes: number;
  maxRedirects: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  totalTimeoutMs: number;
}

// A generated paper with figures (17 kB: over the 10 000-byte limit one case sets).
const pdf = await figurePaperPdf();
const limits = { maxBytes: 1024 * 1024, maxRedirects: 5, headersTimeoutMs: 400, bodyTimeoutMs: 400 };

async function expectAppError(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected an AppError ${code}, got a result`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  if (pattern) expect((error as AppError).message).toMatch(pattern);
  return error as AppError;
}

/**
 * The behaviour every `UrlFetcher` adapter must show: the SSRF refusals, proven with real requests
 * to a loopback server that answers whenever it is reached; redirects; size, time and content limits.
 */
export function runUrlFetcherContract(
  create: (options: FetcherTestOptions) => UrlFetcher & { close(): Promise<void> },
) {
  let server: Server;
  let port = 0;
  let hits = 0;
  const timers = new Set<NodeJS.Timeout>();
  let closed: ReturnType<typeof create>;
  let open: ReturnType<typeof create>;
  const local = (path: string) => `http://127.0.0.1:${port}${path}`;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      const path = request.url ?? '/';
      const redirect = /^\/redirect\/(\d+)$/.exec(path);
      if (redirect) {
        const left = Number(redirect[1]);
        response.writeHead(302, { location: left > 1 ? `/redirect/${left - 1}` : '/paper.pdf' });
        return response.end();
      }
      switch (path) {
        case '/paper.pdf':
          response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
          return response.end(pdf);
        case '/page.html':
          response.writeHead(200, { 'content-type': 'text/html' });
          return response.end(`<html><body>${'not a pdf '.repeat(500)}</body></html>`);
        case '/mislabelled':
          // A PDF served as octet-stream: sniffing, not the header, decides.
          response.writeHead(200, { 'content-type': 'application/octet-stream' });
          return response.end(pdf);
        case '/declared-large':
          response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': 5 * 1024 * 1024 });
          return response.write(pdf.subarray(0, 1000));
        case '/streamed-large': {
          response.writeHead(200, { 'content-type': 'application/pdf' });
          const block = Buffer.alloc(64 * 1024, 32);
          response.write(pdf.subarray(0, 1024));
          let sent = 0;
          const push = () => {
            if (sent++ > 40 || response.destroyed) return response.end();
            response.write(block, () => timers.add(setTimeout(push, 1)));
          };
          return push();
        }
        case '/slow-headers':
          timers.add(setTimeout(() => response.end(pdf), 30_000));
          return;
        case '/stalled-body':
          response.writeHead(200, { 'content-type': 'application/pdf' });
          response.write(pdf.subarray(0, 2000));
          timers.add(setTimeout(() => response.end(pdf.subarray(2000)), 30_000));
          return;
        case '/gzip':
          response.writeHead(200, { 'content-type': 'application/pdf', 'content-encoding': 'gzip' });
          return response.end(gzipSync(pdf));
        case '/missing':
          response.writeHead(404);
          return response.end('gone');
        case '/to-loopback-2':
          response.writeHead(302, { location: `http://127.0.0.2:${port}/paper.pdf` });
          return response.end();
        case '/to-ipv6-loopback':
          response.writeHead(301, { location: `http://[::1]:${port}/paper.pdf` });
          return response.end();
        case '/to-private':
          response.writeHead(307, { location: 'http://10.0.0.1/paper.pdf' });
          return response.end();
        case '/to-metadata':
          response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
          return response.end();
        case '/to-file':
          response.writeHead(302, { location: 'file:///etc/passwd' });
          return response.end();
        case '/to-localhost':
          response.writeHead(302, { location: `http://localhost:${port}/paper.pdf` });
          return response.end();
        default:
          response.writeHead(404);
          return response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    closed = create({ ...limits, allowedPrivateRanges: [], totalTimeoutMs: 5_000 });
    open = create({ ...limits, allowedPrivateRanges: ['127.0.0.1/32'], totalTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await closed.close();
    await open.close();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  /**
   * Counts outgoing TCP connections and refuses any that is not to loopback: a regression of the
   * guard fails the test instead of sending a packet to a private or metadata address.
   */
  function watchConnections(): { targets: string[] } {
    const targets: string[] = [];
    const original = net.connect.bind(net) as (...args: unknown[]) => net.Socket;
    vi.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
      const options = args[0] as { host?: string };
      const host = String(options?.host ?? '');
      targets.push(host);
      if (!/^(127\.|::1$|localhost$|\[::1\]$)/.test(host)) {
        throw new Error(`test safety net: refused to connect to ${host}`);
      }
      return original(...args);
    }) as typeof net.connect);
    return { targets };
  }

  describe('SSRF refusals, proven against a loopback server that answers when reached', () => {
    it('fetches the loopback server when (and only when) its range is opened explicitly', async () => {
      const before = hits;
      const fetched = await open.fetch(local('/paper.pdf'), { param: 'pdf_url', expectPdf: true });
      expect(Buffer.from(fetched.bytes).equals(pdf)).toBe(true);
      expect(fetched.contentType).toBe('application/pdf');
      expect(hits).toBe(before + 1);

      await expectAppError(
        closed.fetch(local('/paper.pdf'), { param: 'pdf_url' }),
        'invalid_request',
        /loopback/,
      );
      expect(hits).toBe(before + 1);
    });

    const loopbackForms = [
      ['127.0.0.1', (p: number) => `http://127.0.0.1:${p}/paper.pdf`],
      ['localhost', (p: number) => `http://localhost:${p}/paper.pdf`],
      ['0x7f000001', (p: number) => `http://0x7f000001:${p}/paper.pdf`],
      ['2130706433', (p: number) => `http://2130706433:${p}/paper.pdf`],
      ['IPv4-mapped IPv6', (p: number) => `http://[::ffff:127.0.0.1]:${p}/paper.pdf`],
      ['IPv4-mapped IPv6 in hex', (p: number) => `http://[::ffff:7f00:1]:${p}/paper.pdf`],
      ['IPv6 loopback', (p: number) => `http://[::1]:${p}/paper.pdf`],
      ['0.0.0.0 (reaches local listeners on Linux)', (p: number) => `http://0.0.0.0:${p}/paper.pdf`],
      ['127.1 shorthand', (p: number) => `http://127.1:${p}/paper.pdf`],
    ] as const;
    for (const [name, url] of loopbackForms) {
      it(`refuses ${name} with 400 naming the parameter, without reaching the server`, async () => {
        const before = hits;
        const error = await expectAppError(closed.fetch(url(port), { param: 'pdf_url' }), 'invalid_request');
        expect(error.param).toBe('pdf_url');
        expect(error.message).toMatch(/refused/);
        expect(hits).toBe(before);
      });
    }

    const remoteForbidden = [
      'http://10.0.0.1/paper.pdf',
      'http://172.16.5.4/paper.pdf',
      'http://192.168.1.1/paper.pdf',
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.10.10/',
      'http://100.64.0.1/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:10.0.0.1]/',
      'http://[::ffff:169.254.169.254]/',
      'http://[2002:a00:1::]/',
    ];
    for (const url of remoteForbidden) {
      it(`refuses ${url} before any connection is attempted`, async () => {
        const watch = watchConnections();
        await expectAppError(closed.fetch(url, { param: 'url' }), 'invalid_request', /refused/);
        await expectAppError(open.fetch(url, { param: 'url' }), 'invalid_request', /refused/);
        expect(watch.targets).toEqual([]);
      });
    }

    it('refuses non-http schemes', async () => {
      for (const url of [
        'file:///etc/passwd',
        'ftp://example.org/x.pdf',
        'gopher://example.org/',
        'data:application/pdf,%25PDF-',
      ]) {
        await expectAppError(closed.fetch(url, { param: 'pdf_url' }), 'invalid_request', /http or https/);
      }
      await expectAppError(
        closed.fetch('not a url', { param: 'pdf_url' }),
        'invalid_request',
        /not a valid URL/,
      );
    });
  });

  describe('redirects', () => {
    it('follows up to the limit, re-validating each hop, and refuses one more', async () => {
      const fetched = await open.fetch(local('/redirect/5'), { expectPdf: true });
      expect(fetched.redirects).toBe(5);
      expect(fetched.url).toBe(local('/paper.pdf'));
      expect(Buffer.from(fetched.bytes).equals(pdf)).toBe(true);
      await expectAppError(
        open.fetch(local('/redirect/6'), { param: 'pdf_url' }),
        'invalid_request',
        /more than 5/,
      );
    });

    it('refuses a redirect to a private, loopback or metadata literal, or to another scheme', async () => {
      const watch = watchConnections();
      // A fresh fetcher has no pooled connection, so the watch sees every connection it opens.
      const fresh = create({ ...limits, allowedPrivateRanges: ['127.0.0.1/32'], totalTimeoutMs: 5_000 });
      try {
        for (const path of [
          '/to-loopback-2',
          '/to-ipv6-loopback',
          '/to-private',
          '/to-metadata',
          '/to-file',
        ]) {
          const error = await expectAppError(
            fresh.fetch(local(path), { param: 'pdf_url' }),
            'invalid_request',
          );
          expect(error.message).toMatch(/redirect from 127\.0\.0\.1/);
          expect(error.param).toBe('pdf_url');
        }
      } finally {
        await fresh.close();
      }
      // Only the first hop (to the opened 127.0.0.1) ever connected.
      expect(watch.targets.length).toBeGreaterThan(0);
      expect(new Set(watch.targets)).toEqual(new Set(['127.0.0.1']));
    });

    it('checks a redirect to a host name at connect time (the DNS hook)', async () => {
      const before = hits;
      await expectAppError(closed.fetch(local('/to-localhost')), 'invalid_request');
      expect(hits).toBe(before);
      // With only 127.0.0.1/32 opened, localhost may resolve to ::1 too; either it is refused or fetched from 127.0.0.1.
      const result = await open.fetch(local('/to-localhost')).catch((error: AppError) => error);
      if (result instanceof AppError) expect(result.message).toMatch(/resolves to a refused address/);
      else expect(Buffer.from(result.bytes).equals(pdf)).toBe(true);
    });
  });

  describe('limits and content', () => {
    it('refuses a declared content-length over the limit with 413 before reading the body', async () => {
      const error = await expectAppError(
        open.fetch(local('/declared-large'), { param: 'pdf_url' }),
        'payload_too_large',
      );
      expect(error.message).toMatch(/larger than 1 MB/);
    });

    it('stops a streamed body at the limit with 413', async () => {
      await expectAppError(open.fetch(local('/streamed-large')), 'payload_too_large');
      await expectAppError(open.fetch(local('/paper.pdf'), { maxBytes: 10_000 }), 'payload_too_large');
    });

    it('answers 504 when the headers or the body are too slow', async () => {
      const started = Date.now();
      await expectAppError(open.fetch(local('/slow-headers')), 'timeout', /timed out/);
      await expectAppError(open.fetch(local('/stalled-body')), 'timeout', /timed out/);
      // Measured: 1.8 s for both (400 ms limits); the server would finish after 30 s.
      expect(Date.now() - started).toBeLessThan(20_000);
    });

    it('answers 504 when the whole fetch exceeds its deadline', async () => {
      const hurried = create({
        ...limits,
        allowedPrivateRanges: ['127.0.0.1/32'],
        headersTimeoutMs: 5_000,
        bodyTimeoutMs: 5_000,
        totalTimeoutMs: 300,
      });
      try {
        await expectAppError(hurried.fetch(local('/slow-headers')), 'timeout');
      } finally {
        await hurried.close();
      }
    });

    it('sniffs content: 415 for HTML, a PDF served as octet-stream passes', async () => {
      await expectAppError(
        open.fetch(local('/page.html'), { param: 'pdf_url', expectPdf: true }),
        'unsupported_media_type',
        /not point to a PDF/,
      );
      const fetched = await open.fetch(local('/mislabelled'), { expectPdf: true });
      expect(Buffer.from(fetched.bytes).equals(pdf)).toBe(true);
    });

    it('never decompresses (a gzip-encoded body is not taken for a PDF)', async () => {
      const raw = await open.fetch(local('/gzip'));
      expect(Buffer.from(raw.bytes).equals(gzipSync(pdf))).toBe(true);
      await expectAppError(open.fetch(local('/gzip'), { expectPdf: true }), 'unsupported_media_type');
    });

    it('answers 502 for an upstream error status and an unreachable port', async () => {
      const error = await expectAppError(
        open.fetch(local('/missing')),
        'upstream_unavailable',
        /answered 404/,
      );
      expect(error.status).toBe(502);
      const unused = await new Promise<number>((resolve) => {
        const probe = net.createServer().listen(0, '127.0.0.1', () => {
          const free = (probe.address() as AddressInfo).port;
          probe.close(() => resolve(free));
        });
      });
      await expectAppError(
        open.fetch(`http://127.0.0.1:${unused}/x.pdf`),
        'upstream_unavailable',
        /ECONNREFUSED/,
      );
    });
  });
}
