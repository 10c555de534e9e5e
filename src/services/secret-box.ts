import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) of small secrets at rest, with a key derived (HKDF-SHA256)
 * from the service's signing secret and a purpose label, so one secret never serves two uses. A
 * sealed box is JSON text `{v, iv, tag, data}` (base64 parts); opening it with another secret, or
 * after any change to it, fails.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'alexandria', purpose, 32));
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return JSON.stringify({
      v: 1,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    });
  }

  /** The plaintext, or null when the box is malformed, tampered with or sealed under another key. */
  open(sealed: string): string | null {
    try {
      const box = JSON.parse(sealed) as { v: number; iv: string; tag: string; data: string };
      if (box.v !== 1) return null;
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(box.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return null;
    }
  }
}
