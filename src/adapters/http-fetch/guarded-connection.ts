import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { buildConnector } from 'undici';
import type { AddressPolicy } from './address-guard.js';

/** Raised inside the DNS hook or the connector; recognised in the error chain to answer 400, not 502. */
export class BlockedAddressError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** `dns.lookup` that fails when ANY resolved address is refused by the policy. */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refusal = policy.refusal(address);
        if (refusal) {
          return callback(
            new BlockedAddressError(`${hostname} resolves to a refused address (${refusal})`),
            [],
          );
        }
      }
      const first = addresses[0];
      if (!first) {
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * An undici connector that judges the peer of every TCP connection before anything is sent on it:
 * whatever produced the address (an IP literal, which Node connects to without `lookup`, a DNS
 * answer, a redirect, happy-eyeballs), the socket's own `remoteAddress` is checked once connected.
 * For https the TLS handshake then runs over that checked socket, so not even a ClientHello reaches
 * a refused address. The URL check and the DNS hook still refuse earlier, with clearer messages.
 */
export function guardedConnector(
  policy: AddressPolicy,
  options: {
    /** Time to connect (TCP and TLS handshake each), in ms. */
    timeoutMs: number;
    /** Certificate authorities trusted instead of Node's bundle (tests); default: Node's. */
    ca?: string | Buffer;
  },
): buildConnector.connector {
  const settings = { lookup: guardedLookup(policy), timeout: options.timeoutMs };
  const tcp = buildConnector(settings);
  const tls = buildConnector(options.ca === undefined ? settings : { ...settings, ca: options.ca });
  return (target, callback) => {
    const port = target.port || (target.protocol === 'https:' ? '443' : '80');
    tcp({ ...target, protocol: 'http:', port, httpSocket: undefined }, (error, socket) => {
      if (error) return callback(error, null);
      const refusal = policy.refusal(socket.remoteAddress ?? '');
      if (refusal) {
        socket.destroy();
        return callback(
          new BlockedAddressError(`${target.hostname} connected to a refused address (${refusal})`),
          null,
        );
      }
      if (target.protocol !== 'https:') return callback(null, socket);
      tls({ ...target, port, httpSocket: socket }, callback);
    });
  };
}
