import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressPolicy, ipLiteralOf, parseIpAddress } from './address-guard.js';
import { ipv4SpecialRanges, ipv6SpecialRanges } from './special-purpose-addresses.js';

const strict = new AddressPolicy();

describe('AddressPolicy', () => {
  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '134744072', // 8.8.8.8 in decimal
    '0x8.0x8.0x8.0x8',
    '100.63.255.255', // just below 100.64.0.0/10
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700::6810:84e5',
    '2a00:1450:4001:80b::200e',
    '[2a00:1450:4001:80b::200e]',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8', // NAT64 (DNS64 in IPv6-only networks) to a public address
    '64:ff9b::808:808',
    '2002:808:808::1', // 6to4 of a public address
  ])('accepts the public address %s', (address) => {
    expect(strict.refusal(address)).toBeNull();
  });

  // One row per registry entry, and the same addresses again in every notation a URL host can use.
  it.each([
    // IPv4 special-purpose registry (+ multicast)
    ['0.0.0.0', /0\.0\.0\.0\/8 \(unspecified/],
    ['0.1.2.3', /0\.0\.0\.0\/8/],
    ['10.1.2.3', /10\.0\.0\.0\/8 \(private\)/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['169.254.0.1', /link-local/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.0.0.8', /IETF protocol assignments/],
    ['192.0.0.170', /IETF protocol assignments/],
    ['192.0.2.1', /TEST-NET-1/],
    ['192.31.196.1', /AS112/],
    ['192.52.193.1', /AMT/],
    ['192.88.99.1', /6to4 relay/],
    ['192.168.0.1', /private/],
    ['192.175.48.1', /AS112/],
    ['198.18.0.1', /benchmarking/],
    ['198.19.255.255', /benchmarking/],
    ['198.51.100.1', /TEST-NET-2/],
    ['203.0.113.1', /TEST-NET-3/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['169.254.169.254', /metadata/],
    ['100.100.100.200', /metadata/],
    // IPv4 notations (WHATWG URL reads them all; so does a connect())
    ['2130706433', /127\.0\.0\.1 .*loopback/],
    ['0x7f000001', /loopback/],
    ['0x7F.1', /loopback/],
    ['0177.0.0.1', /loopback/],
    ['017700000001', /loopback/],
    ['127.1', /loopback/],
    ['127.0.1', /loopback/],
    ['127.0.0.1.', /loopback/],
    [' 127.0.0.1 ', /loopback/],
    ['0xa9.0xfe.0xa9.0xfe', /metadata/],
    ['2852039166', /metadata/],
    ['0', /unspecified/],
    // IPv6 special-purpose registry (+ multicast, site-local, outside 2000::/3)
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['[::1]', /loopback/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::FFFF:7F00:1', /loopback/],
    ['[::ffff:127.0.0.1]', /loopback/],
    ['::ffff:a9fe:a9fe', /metadata/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:0:7f00:1', /IPv4-translated/],
    ['64:ff9b::7f00:1', /NAT64 .*leads to 127\.0\.0\.1.*loopback/],
    ['64:ff9b::10.0.0.1', /NAT64 .*10\.0\.0\.1.*private/],
    ['64:ff9b::169.254.169.254', /embeds 169\.254\.169\.254, a cloud metadata/],
    ['64:ff9b:1::808:808', /local-use NAT64/],
    ['100::1', /discard-only/],
    ['100:0:0:1::1', /dummy/],
    ['2001::1', /Teredo/],
    // Teredo: client 127.0.0.1 is stored inverted in the last 32 bits (80ff:fffe).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo, carrying 127\.0\.0\.1/],
    ['2001:2::1', /IETF protocol assignments/],
    ['2001:db8::1', /documentation/],
    ['2002:7f00:1::1', /6to4.*127\.0\.0\.1.*loopback/],
    ['2002:a00:1::', /6to4.*private/],
    ['2002:a9fe:a9fe::', /metadata/],
    ['2620:4f:8000::1', /AS112/],
    ['3fff::1', /documentation/],
    ['5f00::1', /segment routing/],
    ['fc00::1', /private/],
    ['fd12:3456::1', /private/],
    ['fd00:ec2::254', /metadata/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['[FE80::1%25eth0]', /link-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['1::1', /outside the IPv6 global unicast range/],
    ['e000::1', /outside the IPv6 global unicast range/],
  ])('refuses %s', (address, reason) => {
    expect(strict.refusal(address)).toMatch(reason);
  });

  // Issue 13: IPv4-compatible IPv6 addresses (::a.b.c.d, deprecated) passed the guard and reached connect().
  it.each([
    ['::169.254.169.254', /embeds 169\.254\.169\.254, a cloud metadata address/],
    ['[::a9fe:a9fe]', /metadata/],
    ['::127.0.0.1', /IPv4-compatible, carrying 127\.0\.0\.1/],
    ['[::7f00:1]', /IPv4-compatible, carrying 127\.0\.0\.1/],
    ['0:0:0:0:0:0:127.0.0.1', /IPv4-compatible/],
    ['::10.0.0.1', /IPv4-compatible, carrying 10\.0\.0\.1/],
    ['::a00:1', /IPv4-compatible/],
    ['::8.8.8.8', /IPv4-compatible/], // never routed as IPv4: refused whatever it carries
  ])('refuses the IPv4-compatible IPv6 address %s (issue 13)', (address, reason) => {
    expect(strict.refusal(address)).toMatch(reason);
  });

  it('refuses the first and the last address of every registry row', () => {
    for (const { cidr } of [...ipv4SpecialRanges, ...ipv6SpecialRanges]) {
      const [network, bits] = cidr.split('/') as [string, string];
      const first = parseIpAddress(network) as Uint8Array;
      const last = first.map((byte, index) => {
        const hostBits = Math.min(8, Math.max(0, (index + 1) * 8 - Number(bits)));
        return byte | ((1 << hostBits) - 1);
      });
      for (const address of [first, last]) {
        const text = address.length === 4 ? address.join('.') : ipv6Text(address);
        expect(strict.refusal(text), `${text} in ${cidr}`).not.toBeNull();
      }
    }
  });

  it('gives the same verdict for an IPv4 address in every notation (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (octets) => {
        const value = octets.reduce((sum, octet) => sum * 256 + octet, 0);
        const dotted = octets.join('.');
        const verdict = strict.refusal(dotted) === null;
        for (const form of [
          String(value),
          `0x${value.toString(16)}`,
          octets.map((octet) => `0${octet.toString(8)}`).join('.'),
          `${octets[0]}.${octets[1]}.${(octets[2] as number) * 256 + (octets[3] as number)}`,
          `::ffff:${dotted}`,
          `[::ffff:${dotted}]`,
        ]) {
          expect(strict.refusal(form) === null, form).toBe(verdict);
        }
        // An IPv4-compatible address is refused whatever it carries.
        expect(strict.refusal(`::${dotted}`)).not.toBeNull();
      }),
      { numRuns: 500 },
    );
  });

  it('opens exactly the configured ranges, never the metadata address or an IPv4-compatible form', () => {
    const policy = new AddressPolicy(['127.0.0.1/32', '10.20.0.0/16', '::1']);
    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('2130706433')).toBeNull();
    expect(policy.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusal('::1')).toBeNull();
    expect(policy.refusal('10.20.3.4')).toBeNull();
    expect(policy.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(policy.refusal('10.21.0.1')).toMatch(/private/);
    // Opening 127.0.0.1 opens the address, not every IPv6 form that carries it.
    expect(policy.refusal('::127.0.0.1')).toMatch(/IPv4-compatible/);
    expect(policy.refusal('64:ff9b::7f00:1')).toMatch(/NAT64/);
    expect(policy.refusal('2002:7f00:1::')).toMatch(/6to4/);
    expect(new AddressPolicy(['169.254.0.0/16']).refusal('169.254.169.254')).toMatch(/metadata/);
    expect(new AddressPolicy(['fd00::/8']).refusal('fd00:ec2::254')).toMatch(/metadata/);
    expect(new AddressPolicy(['::/96']).refusal('::169.254.169.254')).toMatch(/metadata/);
    // An operator may open an IPv6 range explicitly, e.g. an internal 6to4 or compatible block.
    expect(new AddressPolicy(['::/96']).refusal('::10.0.0.1')).toBeNull();
    expect(new AddressPolicy(['0x7f.1']).refusal('127.0.0.1')).toBeNull();
    expect(() => new AddressPolicy(['10.0.0.0/33'])).toThrow(/not an IP address or CIDR/);
    expect(() => new AddressPolicy(['intranet'])).toThrow(/not an IP address or CIDR/);
  });

  it('tells IP literals from host names', () => {
    expect(ipLiteralOf('[::1]')).toBe('::1');
    expect(ipLiteralOf('[::7f00:1]')).toBe('::7f00:1');
    expect(ipLiteralOf('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteralOf('0x7f.1')).toBe('127.0.0.1');
    for (const name of [
      'example.org',
      'localhost',
      'deadbeef',
      '127.0.0.1@evil.org',
      '1.2.3.4.5',
      '',
      '[]',
    ]) {
      expect(ipLiteralOf(name), name).toBeNull();
      expect(strict.refusal(name), name).toMatch(/is not an IP address/);
    }
  });
});

function ipv6Text(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) {
    groups.push((((bytes[index] as number) << 8) | (bytes[index + 1] as number)).toString(16));
  }
  return groups.join(':');
}
