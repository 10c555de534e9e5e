import { describe, expect, it } from 'vitest';
import { AddressPolicy, ipLiteralOf } from './address-guard.js';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy();

  it('accepts public unicast addresses, v4 and v6', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::6810:84e5', '::ffff:8.8.8.8']) {
      expect(strict.refusal(address)).toBeNull();
    }
  });

  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.1', /private/],
    ['169.254.0.1', /link-local/],
    ['169.254.169.254', /metadata/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['fc00::1', /private/],
    ['fd12:3456::1', /private/],
    ['fe80::1', /link-local/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:a9fe:a9fe', /metadata/],
    ['100.64.0.1', /carrierGradeNat/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['64:ff9b::a00:1', /rfc6052/],
    ['[::1]', /loopback/],
  ])('refuses %s', (address, reason) => {
    expect(strict.refusal(address)).toMatch(reason);
  });

  it('opens exactly the configured ranges, never the metadata address', () => {
    const policy = new AddressPolicy(['127.0.0.1/32', '10.20.0.0/16', '::1']);
    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(policy.refusal('::1')).toBeNull();
    expect(policy.refusal('10.20.3.4')).toBeNull();
    expect(policy.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(policy.refusal('10.21.0.1')).toMatch(/private/);
    expect(new AddressPolicy(['169.254.0.0/16']).refusal('169.254.169.254')).toMatch(/metadata/);
  });

  it('tells IP literals from host names', () => {
    expect(ipLiteralOf('[::1]')).toBe('::1');
    expect(ipLiteralOf('127.0.0.1')).toBe('127.0.0.1');
    expect(ipLiteralOf('example.org')).toBeNull();
    expect(ipLiteralOf('localhost')).toBeNull();
  });
});
