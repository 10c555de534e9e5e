import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/ports/blob-store.js';

/** The behaviour every BlobStore adapter must have; `create` returns an empty store. */
export function runBlobStoreContract(name: string, create: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    it('round-trips bytes and overwrites atomically', async () => {
      const store = await create();
      const bytes = new Uint8Array(256 * 1024).map((_, index) => index % 251);
      await store.put('documents/ab/abcdef.pdf', bytes, { contentType: 'application/pdf' });
      expect(await store.has('documents/ab/abcdef.pdf')).toBe(true);
      expect(Buffer.from((await store.get('documents/ab/abcdef.pdf')) ?? [])).toEqual(Buffer.from(bytes));
      await store.put('documents/ab/abcdef.pdf', new Uint8Array([1, 2, 3]));
      expect([...((await store.get('documents/ab/abcdef.pdf')) ?? [])]).toEqual([1, 2, 3]);
    });

    it('answers null/false for absent keys and deletes idempotently', async () => {
      const store = await create();
      expect(await store.get('figures/none.png')).toBeNull();
      expect(await store.has('figures/none.png')).toBe(false);
      await store.put('figures/one.png', new Uint8Array([9]));
      await store.delete('figures/one.png');
      await store.delete('figures/one.png');
      expect(await store.has('figures/one.png')).toBe(false);
    });

    it('refuses keys that could escape its root', async () => {
      const store = await create();
      for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b']) {
        await expect(store.put(key, new Uint8Array([1]))).rejects.toThrow(/Invalid blob key/);
        await expect(store.get(key)).rejects.toThrow(/Invalid blob key/);
      }
    });

    it('stays consistent under concurrent writes of one key', async () => {
      const store = await create();
      const versions = Array.from({ length: 8 }, (_, index) => new Uint8Array(64 * 1024).fill(index));
      await Promise.all(versions.map((version) => store.put('race/key.bin', version)));
      const stored = await store.get('race/key.bin');
      expect(stored?.length).toBe(64 * 1024);
      // Whichever write won, the file holds one whole version.
      expect(new Set(stored).size).toBe(1);
    });

    it('answers the readiness ping', async () => {
      const store = await create();
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
