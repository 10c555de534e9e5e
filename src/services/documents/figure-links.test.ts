import { describe, expect, it } from 'vitest';
import { FigureLinks } from './figure-links.js';

const sha = 'ab'.repeat(32);

function partsOf(url: string) {
  const parsed = new URL(url);
  const [, , , hash, file] = parsed.pathname.split('/');
  return {
    sha256: hash ?? '',
    figureId: (file ?? '').replace(/\.png$/, ''),
    expires: Number(parsed.searchParams.get('exp')),
    signature: parsed.searchParams.get('sig') ?? '',
  };
}

describe('FigureLinks', () => {
  let now = 1_000_000_000_000;
  const links = new FigureLinks({
    secret: 's'.repeat(32),
    publicUrl: 'https://x.test',
    ttlSeconds: 3600,
    now: () => now,
  });

  it('signs absolute links that verify, stay the same within a bucket, and expire', () => {
    const url = links.url(sha, 'p3-1');
    expect(url).toMatch(
      new RegExp(`^https://x\\.test/files/figures/${sha}/p3-1\\.png\\?exp=\\d+&sig=[\\w-]{43}$`),
    );
    expect(links.verify(partsOf(url))).toEqual({});
    now += 60_000;
    expect(links.url(sha, 'p3-1')).toBe(url);
    const expires = partsOf(url).expires;
    expect(expires * 1000 - now).toBeGreaterThanOrEqual(3_540_000);
    now = expires * 1000 + 1000;
    expect(links.verify(partsOf(url))).toBeNull();
  });

  it('refuses tampered parts and links signed with another secret', () => {
    now = 1_000_000_000_000;
    const parts = partsOf(links.url(sha, 'p1-2'));
    expect(links.verify({ ...parts, figureId: 'p1-3' })).toBeNull();
    expect(links.verify({ ...parts, sha256: 'cd'.repeat(32) })).toBeNull();
    expect(links.verify({ ...parts, expires: parts.expires + 3600 })).toBeNull();
    expect(links.verify({ ...parts, signature: `${parts.signature}x` })).toBeNull();
    expect(links.verify({ ...parts, figureId: '../../etc/passwd' })).toBeNull();
    const other = new FigureLinks({
      secret: 't'.repeat(32),
      publicUrl: 'https://x.test',
      ttlSeconds: 3600,
      now: () => now,
    });
    expect(other.verify(parts)).toBeNull();
  });

  it('figure links are tied to a tenant: sealed, signed, not named in clear, and not transferable', () => {
    now = 1_000_000_000_000;
    const url = links.url(sha, 'p2-1', 'png', 'acme-research');
    // Same shape as an untied link: the seal rides in `sig`, after the 43-character HMAC.
    expect(url).toMatch(/\?exp=\d+&sig=[\w-]{60,}$/);
    expect(url).not.toContain('acme');
    const parts = partsOf(url);
    expect(links.verify(parts)).toEqual({ tenantId: 'acme-research' });
    // Deterministic, so a chunk read twice carries the same (cacheable) link.
    expect(links.url(sha, 'p2-1', 'png', 'acme-research')).toBe(url);
    const hmac = parts.signature.slice(0, 43);
    const seal = parts.signature.slice(43);
    const otherSeal = partsOf(links.url(sha, 'p2-1', 'png', 'tenant-b')).signature.slice(43);
    expect(otherSeal).not.toBe(seal);
    // Another tenant's seal, a dropped seal or a forged one invalidates the signature.
    expect(links.verify({ ...parts, signature: hmac + otherSeal })).toBeNull();
    expect(links.verify({ ...parts, signature: hmac })).toBeNull();
    expect(
      links.verify({ ...parts, signature: hmac + Buffer.from('x'.repeat(20)).toString('base64url') }),
    ).toBeNull();
    // An untied link's signature does not verify with a seal added.
    const untied = partsOf(links.url(sha, 'p2-1'));
    expect(links.verify({ ...untied, signature: untied.signature + seal })).toBeNull();
  });

  it('a tied link lives between one and two TTLs, like an untied one', () => {
    now = 1_000_000_000_000;
    const parts = partsOf(links.url(sha, 'p1-1', 'png', 'tenant-a'));
    const life = parts.expires - now / 1000;
    expect(life).toBeGreaterThanOrEqual(3600);
    expect(life).toBeLessThanOrEqual(7200);
  });
});
