// Vitest setup (vitest.config.ts `setupFiles`): tests talk to loopback only, whatever a test or the
// configuration's defaults say (decision 0045: the service federates the open sources by default).
//
// 1. Processes a test spawns inherit ALEXANDRIA_SOURCES=none (whatever the shell running the tests
//    says) unless the test names sources itself in the child's environment.
// 2. In the test process every TCP connection to anything but loopback is refused before a packet
//    leaves (a host name without a lookup of the test's own is refused before DNS too), with an
//    error that names this file. A source so refused reports `failed`, as on a machine offline.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

process.env.ALEXANDRIA_SOURCES = 'none';

/** Connections refused so far in this test file, as `host:port` (for the guard's own test). */
export const refusedConnections: string[] = [];

type Lookup = (
  hostname: string,
  options: object,
  callback: (error: Error | null, address: string | Array<{ address: string }>, family?: number) => void,
) => void;

function isLoopback(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(plain)) return false;
  // ipaddr.process turns IPv4-mapped IPv6 in any spelling (::ffff:127.0.0.1, ::ffff:7f00:1) into IPv4.
  return ipaddr.process(plain).range() === 'loopback';
}

function refusal(host: string, port: unknown): Error {
  refusedConnections.push(`${host}:${String(port)}`);
  return Object.assign(
    new Error(
      `connect ECONNREFUSED ${host}:${String(port)} (tests reach loopback only: test/setup/loopback-only.ts)`,
    ),
    { code: 'ECONNREFUSED' },
  );
}

/** The test's own lookup (a fake DNS), refusing any answer outside loopback. */
function loopbackLookup(lookup: Lookup, port: unknown): Lookup {
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const outside = addresses.find((entry) => !isLoopback(entry));
      if (outside !== undefined) return callback(refusal(`${hostname} (${outside})`, port), address, family);
      callback(null, address, family);
    });
}

const connect = Socket.prototype.connect;

Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]) {
  // net.connect hands over [options, callback] normalised into one array; socket.connect(port, host)
  // and socket.connect(options) come as they are; a string path is a local (IPC) socket.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  let host: string;
  let port: unknown;
  let options: { host?: string; port?: unknown; path?: string; lookup?: Lookup } | undefined;
  if (first !== null && typeof first === 'object') {
    options = first as typeof options & object;
    if (options.path !== undefined) return connect.apply(this, args as never);
    host = options.host ?? 'localhost';
    port = options.port;
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    port = first;
    host = typeof args[1] === 'string' ? args[1] : 'localhost';
  } else {
    return connect.apply(this, args as never);
  }
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) {
    if (isLoopback(host)) return connect.apply(this, args as never);
  } else if (host === 'localhost' || options?.lookup) {
    if (options) options.lookup = loopbackLookup(options.lookup ?? (dnsLookup as unknown as Lookup), port);
    return connect.apply(this, args as never);
  }
  const error = refusal(host, port);
  process.nextTick(() => this.destroy(error));
  return this;
} as typeof Socket.prototype.connect;
