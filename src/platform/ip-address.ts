import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IP addresses and ranges as bytes, read the way a URL host is read. Pure (no I/O), so the fetch
 * policy (src/adapters/http-fetch/address-guard.ts) and the config check of
 * ALEXANDRIA_FETCH_ALLOW_PRIVATE_RANGES share one parser: a value the policy cannot read is refused
 * when the config loads, with the variable named, instead of failing when the fetcher is built.
 */

/** An address as its bytes: 4 for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

/** A CIDR range: the network's bytes and its prefix length in bits. */
export interface IpRange {
  network: IpBytes;
  bits: number;
}

/**
 * The bytes of an IP address in any notation a URL host may use, or null when `text` is not one.
 * Parsing goes through WHATWG URL (what `fetch` and undici use), so the policy sees exactly the
 * address a connection would reach: `127.1`, `0x7f000001` and `017700000001` are all 127.0.0.1.
 * Brackets and IPv6 zone ids (`fe80::1%eth0`: the zone picks an interface, not an address) are dropped.
 */
export function parseIpAddress(text: string): IpBytes | null {
  let host = text.trim();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.includes(':')) {
    host = host.replace(/%.*$/s, '');
    if (!/^[0-9a-f:.]+$/i.test(host)) return null;
    const canonical = urlHostname(`http://[${host}]/`);
    // WHATWG serialises IPv6 in hex only, which ipaddr.js reads correctly (it misreads `::a.b.c.d`).
    return canonical ? Uint8Array.from(ipaddr.IPv6.parse(canonical.slice(1, -1)).toByteArray()) : null;
  }
  // Only number-like hosts: anything else (user info, paths) must not be read as an address.
  if (!/^[0-9a-fx.]+$/i.test(host)) return null;
  const canonical = urlHostname(`http://${host}/`);
  return canonical && isIP(canonical) === 4 ? Uint8Array.from(canonical.split('.').map(Number)) : null;
}

/**
 * `10.0.0.0/8`, or a single address (`::1`, a range of one), or null. The prefix length is plain
 * decimal digits within the address size: `127.0.0.1/` is not read as /0, which would open everything.
 */
export function parseIpRange(text: string): IpRange | null {
  const slash = text.lastIndexOf('/');
  const network = parseIpAddress(slash === -1 ? text : text.slice(0, slash));
  if (!network) return null;
  if (slash === -1) return { network, bits: network.length * 8 };
  const prefix = text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(prefix)) return null;
  const bits = Number(prefix);
  return bits <= network.length * 8 ? { network, bits } : null;
}

function urlHostname(text: string): string | null {
  try {
    return new URL(text).hostname;
  } catch {
    return null;
  }
}
