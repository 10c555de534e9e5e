import { describe, expect, it } from 'vitest';
import { parseIpAddress, parseIpRange } from './ip-address.js';

const v4 = (...bytes: number[]) => Uint8Array.from(bytes);
const v6 = (tail: number[]) => Uint8Array.from([...Array(16 - tail.length).fill(0), ...tail]);

describe('parseIpAddress', () => {
  it('reads every notation a URL host may use, as the bytes a connection reaches', () => {
    for (const text of ['127.0.0.1', '127.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433', ' 127.0.0.1 ']) {
      expect(parseIpAddress(text), text).toEqual(v4(127, 0, 0, 1));
    }
    // ipaddr.js alone reads `::a.b.c.d` wrongly; through the URL parser it is the IPv4-compatible form.
    expect(parseIpAddress('::127.0.0.1')).toEqual(v6([127, 0, 0, 1]));
    expect(parseIpAddress('[::ffff:7f00:1]')).toEqual(v6([0xff, 0xff, 127, 0, 0, 1]));
    expect(parseIpAddress('fe80::1%eth0')).toEqual(Uint8Array.from([0xfe, 0x80, ...Array(13).fill(0), 1]));
  });

  it('refuses names and malformed text', () => {
    for (const text of ['example.org', '1.2.3.4.5', '::ffff:0x7f.0.0.1', 'user@1.2.3.4', '1.2.3.4/8', '']) {
      expect(parseIpAddress(text), text).toBeNull();
    }
  });
});

describe('parseIpRange', () => {
  it('reads CIDRs and single addresses', () => {
    expect(parseIpRange('10.0.0.0/8')).toEqual({ network: v4(10, 0, 0, 0), bits: 8 });
    expect(parseIpRange('127.0.0.1')).toEqual({ network: v4(127, 0, 0, 1), bits: 32 });
    expect(parseIpRange('::1')).toEqual({ network: v6([1]), bits: 128 });
    expect(parseIpRange('fd00::/8')?.bits).toBe(8);
  });

  it('never reads a missing or odd prefix as /0, which would open every address', () => {
    for (const text of [
      '127.0.0.1/',
      '127.0.0.1/ ',
      '127.0.0.1/3.0',
      '127.0.0.1/0x8',
      '127.0.0.1/-1',
      '::1/0128',
    ]) {
      expect(parseIpRange(text), text).toBeNull();
    }
    expect(parseIpRange('10.0.0.0/33')).toBeNull();
    expect(parseIpRange('::/129')).toBeNull();
  });
});
