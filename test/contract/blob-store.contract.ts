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

    it('lists the keys under a folder with their write time, nothing outside it', async () => {
      const store = await create();
      const before = Date.now();
      const inside = ['documents/ab/ab01.pdf', 'documents/ab/ab02.pdf', 'documents/cd/cd01.pdf'];
      for (const key of inside) await store.put(key, new Uint8Array([1]));
      await store.put('documents-old/ab/ab03.pdf', new Uint8Array([2]));
      await store.put('figures/ab/ab01/p1-1.png', new Uint8Array([3]));
      await store.put('root.bin', new Uint8Array([4]));
      const listed = [];
      for await (const blob of store.list('documents')) listed.push(blob);
      expect(listed.map((blob) => blob.key).sort()).toEqual(inside);
      for (const blob of listed) {
        expect(blob.size).toBe(1);
        // Stores keep whole seconds (S3): allow the rounding.
        expect(blob.lastModified.getTime()).toBeGreaterThanOrEqual(before - 2000);
        expect(blob.lastModified.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
      }
      const nested = [];
      for await (const blob of store.list('documents/cd')) nested.push(blob.key);
      expect(nested).toEqual(['documents/cd/cd01.pdf']);
      await store.delete('documents/ab/ab01.pdf');
      const after = [];
      for await (const blob of store.list('documents')) after.push(blob.key);
      expect(after.sort()).toEqual(['documents/ab/ab02.pdf', 'documents/cd/cd01.pdf']);
    });

    it('reports each listed blob’s length in bytes', async () => {
      const store = await create();
      await store.put('pages/ab/abcd/r1/p1-w1000.png', new Uint8Array(70_001));
      await store.put('pages/ab/abcd/r1/p2-w1000.png', new Uint8Array(0));
      const sizes: Record<string, number> = {};
      for await (const blob of store.list('pages')) sizes[blob.key] = blob.size;
      expect(sizes).toEqual({ 'pages/ab/abcd/r1/p1-w1000.png': 70_001, 'pages/ab/abcd/r1/p2-w1000.png': 0 });
    });

    it('empties a folder key by key, and writes into it again afterwards', async () => {
      const store = await create();
      const keys = ['figures/ab/abcd/p1-1.png', 'figures/ab/abcd/p2-1.png', 'figures/ab/abce/p1-1.png'];
      for (const key of keys) await store.put(key, new Uint8Array([7]));
      for await (const blob of store.list('figures/ab/abcd')) await store.delete(blob.key);
      const left = [];
      for await (const blob of store.list('figures')) left.push(blob.key);
      expect(left).toEqual(['figures/ab/abce/p1-1.png']);
      // Deletes and writes of one folder at once: every write lands (a delete never takes a
      // folder from under a write in progress).
      await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const key = `figures/cd/cdef/p${index}-1.png`;
          await store.put(key, new Uint8Array([index]));
          if (index % 2 === 0) await store.delete(key);
        }),
      );
      const written = [];
      for await (const blob of store.list('figures/cd')) written.push(blob.key);
      expect(written.sort()).toEqual(
        Array.from({ length: 10 }, (_, index) => `figures/cd/cdef/p${2 * index + 1}-1.png`).sort(),
      );
      for (const key of written) expect(await store.has(key)).toBe(true);
    });

    it('lists nothing for an absent folder and refuses an escaping one', async () => {
      const store = await create();
      const listed = [];
      for await (const blob of store.list('nothing-here')) listed.push(blob);
      expect(listed).toEqual([]);
      const escaping = async () => {
        for await (const _ of store.list('../x')) break;
      };
      await expect(escaping()).rejects.toThrow(/Invalid blob key/);
    });

    it('answers the readiness ping', async () => {
      const store = await create();
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
