import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-guard.js';
import { BlockedAddressError, guardedConnector } from './guarded-connection.js';

// A self-signed certificate for 127.0.0.1, made for these tests only (openssl req -x509, 100 years).
const fixtures = join(import.meta.dirname, '__fixtures__');
const cert = readFileSync(join(fixtures, 'loopback-cert.pem'));
const key = readFileSync(join(fixtures, 'loopback-key.pem'));

type Connect = ReturnType<typeof guardedConnector>;

function connect(
  connector: Connect,
  protocol: 'http:' | 'https:',
  port: number,
): Promise<Socket | TLSSocket> {
  return new Promise((resolve, reject) => {
    connector(
      { hostname: '127.0.0.1', host: `127.0.0.1:${port}`, protocol, port: String(port) },
      (...args) => {
        const [error, socket] = args;
        if (error) reject(error);
        else resolve(socket as Socket);
      },
    );
  });
}

/**
 * The connector judges the peer of the socket itself. An IP literal never goes through `lookup`, so
 * these tests connect to 127.0.0.1 by literal: only the socket check stands between us and it.
 */
describe('guardedConnector', () => {
  let raw: Server;
  let rawPort = 0;
  let receivedBytes = 0;
  let tls: ReturnType<typeof createHttpsServer>;
  let tlsPort = 0;

  beforeAll(async () => {
    raw = createServer((socket) => {
      socket.on('data', (chunk: Buffer) => {
        receivedBytes += chunk.length;
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    rawPort = (raw.address() as AddressInfo).port;
    tls = createHttpsServer({ cert, key }, (_request, response) => response.end('over tls'));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsPort = (tls.address() as AddressInfo).port;
  });

  afterAll(async () => {
    tls.closeAllConnections();
    await new Promise((resolve) => tls.close(resolve));
    await new Promise((resolve) => raw.close(resolve));
  });

  it('refuses a socket whose peer the policy refuses, before a byte is sent (http and https)', async () => {
    const connector = guardedConnector(new AddressPolicy(), { timeoutMs: 2_000 });
    for (const protocol of ['http:', 'https:'] as const) {
      const error = await connect(connector, protocol, rawPort).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(BlockedAddressError);
      expect((error as BlockedAddressError).reason).toMatch(/127\.0\.0\.1 connected to a refused address/);
    }
    // Not even a TLS ClientHello reached the refused peer.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receivedBytes).toBe(0);
  });

  it('hands over an allowed socket, and runs TLS over the socket it checked', async () => {
    const connector = guardedConnector(new AddressPolicy(['127.0.0.1/32']), { timeoutMs: 2_000, ca: cert });
    const socket = (await connect(connector, 'https:', tlsPort)) as TLSSocket;
    expect(socket.encrypted).toBe(true);
    expect(socket.authorized).toBe(true);
    socket.write('GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
    let text = '';
    for await (const chunk of socket) text += String(chunk);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain('over tls');
  });
});
