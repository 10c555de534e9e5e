import { hash, randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';

/** A random, URL-safe id such as `prj_k3m9x2…` (16 characters after the prefix, ~80 bits). */
export function newId(prefix: string, length = 16): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return `${prefix}_${id}`;
}

/** SHA-256 as hex, in one call (no Hash object: this runs on every authenticated request). */
export function sha256Hex(data: Uint8Array | string): string {
  return hash('sha256', data, 'hex');
}
