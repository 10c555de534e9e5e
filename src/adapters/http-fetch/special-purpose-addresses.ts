/**
 * The IANA special-purpose address registries, as data (iana.org/assignments/iana-ipv4-special-registry
 * and iana-ipv6-special-registry, plus multicast and the deprecated blocks from the address-space
 * registries). A fetch of a user-supplied URL refuses every row, including the few the registry marks
 * globally reachable (AS112, AMT, the anycast service addresses): no paper is served from them, and a
 * short, complete deny list is easier to trust than a curated one. Nested rows (Teredo inside
 * 2001::/23, broadcast inside 240.0.0.0/4) only sharpen the reason given; the most specific row wins.
 */

/** How an IPv6 range carries an IPv4 address, when it does. */
export type Embedding =
  /** `::ffff:a.b.c.d`: the socket really connects to a.b.c.d, so a.b.c.d is what is judged. */
  | 'mapped'
  /** `::a.b.c.d` (RFC 4291, deprecated): refused; the embedded address is named in the reason. */
  | 'compatible'
  /** `64:ff9b::a.b.c.d` (RFC 6052): a NAT64 gateway forwards to a.b.c.d, so a.b.c.d must be public. */
  | 'nat64'
  /** `2002:AABB:CCDD::/48` (RFC 3056): a 6to4 relay forwards to a.b.c.d, so a.b.c.d must be public. */
  | 'sixToFour'
  /** `2001:0:…` (RFC 4380): refused; the client address sits in the last 32 bits, inverted. */
  | 'teredo';

export interface SpecialRange {
  cidr: string;
  /** Short human name used in refusals ("loopback", "private"). */
  name: string;
  embeds?: Embedding;
}

export const ipv4SpecialRanges: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', name: 'unspecified, "this network"' },
  { cidr: '10.0.0.0/8', name: 'private' },
  { cidr: '100.64.0.0/10', name: 'shared address space, carrier-grade NAT' },
  { cidr: '127.0.0.0/8', name: 'loopback' },
  { cidr: '169.254.0.0/16', name: 'link-local' },
  { cidr: '172.16.0.0/12', name: 'private' },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', name: 'documentation, TEST-NET-1' },
  { cidr: '192.31.196.0/24', name: 'AS112 anycast' },
  { cidr: '192.52.193.0/24', name: 'AMT anycast' },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast' },
  { cidr: '192.168.0.0/16', name: 'private' },
  { cidr: '192.175.48.0/24', name: 'AS112 direct delegation' },
  { cidr: '198.18.0.0/15', name: 'benchmarking' },
  { cidr: '198.51.100.0/24', name: 'documentation, TEST-NET-2' },
  { cidr: '203.0.113.0/24', name: 'documentation, TEST-NET-3' },
  { cidr: '224.0.0.0/4', name: 'multicast' },
  { cidr: '240.0.0.0/4', name: 'reserved' },
  { cidr: '255.255.255.255/32', name: 'limited broadcast' },
];

/**
 * IPv6 rows. Everything outside the global unicast block 2000::/3 is refused as well (the address
 * policy adds that rule), so rows below ::/8 or in fc00::/7 mostly name the reason; inside 2000::/3
 * they are what makes an address refused.
 */
export const ipv6SpecialRanges: readonly SpecialRange[] = [
  { cidr: '::/128', name: 'unspecified' },
  { cidr: '::1/128', name: 'loopback' },
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', embeds: 'mapped' },
  { cidr: '::/96', name: 'deprecated IPv4-compatible', embeds: 'compatible' },
  { cidr: '::ffff:0:0:0/96', name: 'IPv4-translated (SIIT)' },
  { cidr: '64:ff9b::/96', name: 'NAT64 well-known prefix', embeds: 'nat64' },
  { cidr: '64:ff9b:1::/48', name: 'local-use NAT64' },
  { cidr: '100::/64', name: 'discard-only' },
  { cidr: '100:0:0:1::/64', name: 'dummy prefix' },
  { cidr: '2001::/23', name: 'IETF protocol assignments' },
  { cidr: '2001::/32', name: 'Teredo', embeds: 'teredo' },
  { cidr: '2001:db8::/32', name: 'documentation' },
  { cidr: '2002::/16', name: '6to4', embeds: 'sixToFour' },
  { cidr: '2620:4f:8000::/48', name: 'AS112 direct delegation' },
  { cidr: '3fff::/20', name: 'documentation' },
  { cidr: '5f00::/16', name: 'segment routing SIDs' },
  { cidr: 'fc00::/7', name: 'private, unique local' },
  { cidr: 'fe80::/10', name: 'link-local' },
  { cidr: 'fec0::/10', name: 'deprecated site-local' },
  { cidr: 'ff00::/8', name: 'multicast' },
];

/**
 * Cloud metadata endpoints. Refused even when an operator opens a range that contains them, and when
 * they are embedded in an IPv6 address: no deployment needs a user-supplied URL to reach instance
 * credentials.
 */
export const metadataAddresses: readonly string[] = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];
