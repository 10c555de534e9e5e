import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/**
 * Cloud metadata endpoints. Refused even when an operator allows a private range that contains
 * them: no deployment needs a user-supplied URL to reach instance credentials.
 */
const metadataAddresses = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

/** Which addresses a fetch may connect to: public unicast, plus explicitly allowed ranges. */
export class AddressPolicy {
  private readonly allowed: Range[];

  /** `allowedRanges` are CIDRs (`127.0.0.1/32`, `10.1.0.0/16`) an operator opened on purpose. */
  constructor(allowedRanges: readonly string[] = []) {
    this.allowed = allowedRanges.map((cidr) =>
      ipaddr.parseCIDR(cidr.includes('/') ? cidr : `${cidr}/${isIP(cidr) === 6 ? 128 : 32}`),
    );
  }

  /** Why `address` (an IP literal) is refused, or null when a connection to it is fine. */
  refusal(address: string): string | null {
    let parsed: Address;
    try {
      parsed = unmap(ipaddr.parse(stripBrackets(address)));
    } catch {
      return `"${address}" is not an IP address`;
    }
    const text = parsed.toString();
    if (metadataAddresses.some((metadata) => ipaddr.parse(metadata).toString() === text)) {
      return `${text} is a cloud metadata address`;
    }
    const range = parsed.range();
    if (range === 'unicast') return null;
    if (
      this.allowed.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits))
    ) {
      return null;
    }
    return `${text} is a ${describeRange(range)} address`;
  }
}

/** `::ffff:127.0.0.1` is 127.0.0.1: check the IPv4 address an IPv4-mapped IPv6 address carries. */
function unmap(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** True when the URL host is an IP literal (Node connects to those without calling `lookup`). */
export function ipLiteralOf(hostname: string): string | null {
  const host = stripBrackets(hostname);
  return isIP(host) === 0 ? null : host;
}

function describeRange(range: string): string {
  switch (range) {
    case 'private':
    case 'uniqueLocal':
      return 'private';
    case 'loopback':
      return 'loopback';
    case 'linkLocal':
      return 'link-local';
    case 'unspecified':
      return 'unspecified (0.0.0.0/::)';
    default:
      return `non-public (${range})`;
  }
}
