import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refusedConnections } from './loopback-only.js';

/** The error chain of a failed fetch, as one text. */
async function failureOf(url: string): Promise<string> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5000) });
  } catch (error) {
    const cause = (error as { cause?: { message?: string; code?: string } }).cause;
    return `${(error as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`;
  }
  return 'answered';
}

describe('tests reach loopback only (test/setup/loopback-only.ts)', () => {
  it('refuses a public address and a public host name before any packet or DNS query leaves', async () => {
    const before = refusedConnections.length;
    expect(await failureOf('http://192.0.2.10/works')).toContain('tests reach loopback only');
    expect(await failureOf('https://api.openalex.org/works?search=x')).toContain('ECONNREFUSED');
    expect(refusedConnections.slice(before)).toEqual(['192.0.2.10:80', 'api.openalex.org:443']);
  });

  it('refuses a name a test resolves itself unless it resolves to loopback', async () => {
    const { connect } = await import('node:net');
    const outcome = (address: string) =>
      new Promise<string>((resolve) => {
        const socket = connect({
          host: 'papers.example.org',
          port: 9,
          lookup: (_host, _options, callback) =>
            (callback as (e: null, a: string, f: number) => void)(null, address, 4),
        });
        socket.once('error', (error) => resolve((error as NodeJS.ErrnoException).code ?? error.message));
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
      });
    expect(await outcome('203.0.113.5')).toBe('ECONNREFUSED');
    expect(refusedConnections.at(-1)).toBe('papers.example.org (203.0.113.5):9');
  });

  it('lets loopback through, and spawned services default to no upstream source', async () => {
    const server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
      expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe('ok');
    } finally {
      server.close();
    }
    expect(process.env.ALEXANDRIA_SOURCES).toBe('none');
  });
});
