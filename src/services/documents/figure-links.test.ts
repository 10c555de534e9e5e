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
    expect(links.verify(partsOf(url))).toBe(true);
    now += 60_000;
    expect(links.url(sha, 'p3-1')).toBe(url);
    const expires = partsOf(url).expires;
    expect(expires * 1000 - now).toBeGreaterThanOrEqual(3_540_000);
    now = expires * 1000 + 1000;
    expect(links.verify(partsOf(url))).toBe(false);
  });

  it('refuses tampered parts and links signed with another secret', () => {
    now = 1_000_000_000_000;
    const parts = partsOf(links.url(sha, 'p1-2'));
    expect(links.verify({ ...parts, figureId: 'p1-3' })).toBe(false);
    expect(links.verify({ ...parts, sha256: 'cd'.repeat(32) })).toBe(false);
    expect(links.verify({ ...parts, expires: parts.expires + 3600 })).toBe(false);
    expect(links.verify({ ...parts, signature: `${parts.signature}x` })).toBe(false);
    expect(links.verify({ ...parts, figureId: '../../etc/passwd' })).toBe(false);
    const other = new FigureLinks({
      secret: 't'.repeat(32),
      publicUrl: 'https://x.test',
      ttlSeconds: 3600,
      now: () => now,
    });
    expect(other.verify(parts)).toBe(false);
  });
});
