import ipaddr from 'ipaddr.js';
import { type IpBytes, type IpRange, parseIpAddress, parseIpRange } from '../../platform/ip-address.js';
import {
  type Embedding,
  ipv4SpecialRanges,
  ipv6SpecialRanges,
  metadataAddresses,
  type SpecialRange,
} from './special-purpose-addresses.js';

/** The address parser is shared with the config check (src/platform/ip-address.ts). */
export { parseIpAddress };

type Bytes = IpBytes;
type Range = IpRange;

interface Row extends Range, SpecialRange {}

/** Most specific first, so nested rows (Teredo in 2001::/23) give the sharper reason. */
const ipv4Rows = compile(ipv4SpecialRanges);
const ipv6Rows = compile(ipv6SpecialRanges);
const globalUnicast = parseIpRange('2000::/3');
const metadata = metadataAddresses.map((text) => parseIpAddress(text) as Bytes);

/**
 * Which addresses a fetch may connect to: anything outside the IANA special-purpose registries
 * (IPv6: only inside global unicast 2000::/3), plus ranges an operator opened on purpose. IPv4 carried
 * inside IPv6 is judged by what the connection actually reaches: the mapped address itself, the
 * target of a NAT64 or 6to4 translator, and never a deprecated IPv4-compatible or Teredo address.
 */
export class AddressPolicy {
  private readonly opened: Range[];

  /** `allowedRanges` are addresses or CIDRs (`127.0.0.1/32`, `10.1.0.0/16`) opened on purpose. */
  constructor(allowedRanges: readonly string[] = []) {
    this.opened = allowedRanges.map((text) => {
      const range = parseIpRange(text);
      if (!range) throw new Error(`"${text}" is not an IP address or CIDR range`);
      return range;
    });
  }

  /**
   * Why `address` is refused, or null when a connection to it is fine. Accepts every notation the
   * WHATWG URL parser does (`2130706433`, `0177.1`, `0x7f.0.0.1`, `[::ffff:7f00:1]`, zone ids).
   */
  refusal(address: string): string | null {
    const bytes = parseIpAddress(address);
    if (!bytes) return `"${address}" is not an IP address`;
    return this.judge(bytes);
  }

  private judge(address: Bytes): string | null {
    const shown = formatAddress(address);
    if (isMetadata(address)) return `${shown} is a cloud metadata address`;
    const row = matchRow(address);
    const embedded = row?.embeds ? embeddedIpv4(address, row.embeds) : undefined;
    if (embedded && isMetadata(embedded)) {
      return `${shown} embeds ${formatAddress(embedded)}, a cloud metadata address`;
    }
    if (this.opened.some((range) => contains(range, address))) return null;
    // The socket connects to the IPv4 address itself; operator ranges apply to it as to any IPv4.
    if (row?.embeds === 'mapped' && embedded) return this.judge(embedded);
    if ((row?.embeds === 'nat64' || row?.embeds === 'sixToFour') && embedded) {
      // A translator forwards to the embedded address: it must be public on its own.
      const inner = matchRow(embedded);
      return inner
        ? `${shown} is in ${row.cidr} (${row.name}) and leads to ${formatAddress(embedded)}, in ${inner.cidr} (${inner.name})`
        : null;
    }
    if (row) {
      const carried = embedded ? `, carrying ${formatAddress(embedded)}` : '';
      return `${shown} is in ${row.cidr} (${row.name}${carried})`;
    }
    if (address.length === 16 && !contains(globalUnicast as Range, address)) {
      return `${shown} is outside the IPv6 global unicast range 2000::/3`;
    }
    return null;
  }
}

/** The canonical text of an IP literal host (`[::ffff:127.0.0.1]` → `::ffff:7f00:1`), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bytes = parseIpAddress(hostname);
  return bytes ? formatAddress(bytes) : null;
}

function compile(rows: readonly SpecialRange[]): Row[] {
  return rows
    .map((row) => ({ ...row, ...(parseIpRange(row.cidr) as Range) }))
    .sort((a, b) => b.bits - a.bits);
}

function matchRow(address: Bytes): Row | undefined {
  return (address.length === 4 ? ipv4Rows : ipv6Rows).find((row) => contains(row, address));
}

function contains({ network, bits }: Range, address: Bytes): boolean {
  if (network.length !== address.length) return false;
  const whole = bits >> 3;
  for (let index = 0; index < whole; index++) if (network[index] !== address[index]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((network[whole] as number) & mask) === ((address[whole] as number) & mask);
}

function isMetadata(address: Bytes): boolean {
  return metadata.some((known) => contains({ network: known, bits: known.length * 8 }, address));
}

/** The IPv4 address an IPv6 address of this kind carries. */
function embeddedIpv4(address: Bytes, embedding: Embedding): Bytes {
  switch (embedding) {
    case 'sixToFour':
      return address.slice(2, 6);
    case 'teredo':
      // RFC 4380: the client's public address is stored with every bit inverted.
      return address.slice(12, 16).map((byte) => byte ^ 0xff);
    default:
      return address.slice(12, 16);
  }
}

function formatAddress(address: Bytes): string {
  return ipaddr.fromByteArray([...address]).toString();
}
