import { existsSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { runBlobStoreContract } from './blob-store.contract.js';

runBlobStoreContract(
  'filesystem',
  async () => new FsBlobStore(mkdtempSync(join(tmpdir(), 'alexandria-blobs-'))),
);

describe('FsBlobStore', () => {
  it('removes the folders a delete leaves empty, up to its root and no further', async () => {
    const root = mkdtempSync(join(tmpdir(), 'alexandria-blobs-'));
    const store = new FsBlobStore(root);
    await store.put('pages/ab/abcd/r1/p1-w1000.png', new Uint8Array([1]));
    await store.put('pages/ab/abcd/r1/p2-w1000.png', new Uint8Array([1]));
    await store.put('pages/ab/abce/r1/p1-w1000.png', new Uint8Array([1]));
    await store.delete('pages/ab/abcd/r1/p1-w1000.png');
    expect(existsSync(join(root, 'pages', 'ab', 'abcd', 'r1'))).toBe(true);
    await store.delete('pages/ab/abcd/r1/p2-w1000.png');
    expect(existsSync(join(root, 'pages', 'ab', 'abcd'))).toBe(false);
    expect(readdirSync(join(root, 'pages', 'ab'))).toEqual(['abce']);
    await store.delete('pages/ab/abce/r1/p1-w1000.png');
    expect(readdirSync(root)).toEqual([]);
    expect(existsSync(root)).toBe(true);
    // Deleting what is not there touches nothing.
    await store.delete('pages/zz/none.png');
    expect(existsSync(root)).toBe(true);
  });

  it('never lists the temporary file of a write in progress as a blob', async () => {
    const root = mkdtempSync(join(tmpdir(), 'alexandria-blobs-'));
    const store = new FsBlobStore(root);
    await store.put('documents/ab/ab01.pdf', new Uint8Array([1]));
    // What `put` leaves while it writes (or after a kill mid-write).
    mkdirSync(join(root, 'documents', 'cd'), { recursive: true });
    writeFileSync(join(root, 'documents', 'cd', 'cd01.pdf.0123456789ab.tmp'), 'partial');
    const listed = [];
    for await (const blob of store.list('documents')) listed.push(blob.key);
    expect(listed).toEqual(['documents/ab/ab01.pdf']);
  });

  it('deletes the temporary files a killed write left, once older than the cutoff, and nothing else', async () => {
    const root = mkdtempSync(join(tmpdir(), 'alexandria-blobs-'));
    const store = new FsBlobStore(root);
    await store.put('documents/ab/ab01.pdf', new Uint8Array([1]));
    const files = {
      oldTemporary: join(root, 'documents', 'cd', 'cd01.pdf.0123456789ab.tmp'),
      oldFigureTemporary: join(root, 'figures', 'ef', 'figure-1.png.abcdef012345.tmp'),
      freshTemporary: join(root, 'documents', 'cd', 'cd02.pdf.9876543210ab.tmp'),
      oldBlob: join(root, 'documents', 'ab', 'ab01.pdf'),
      oldLookalike: join(root, 'notes.tmp'),
    };
    for (const path of Object.values(files)) {
      mkdirSync(join(path, '..'), { recursive: true });
      if (!existsSync(path)) writeFileSync(path, 'partial');
    }
    const past = new Date(Date.now() - 2 * 3_600_000);
    for (const path of [files.oldTemporary, files.oldFigureTemporary, files.oldBlob, files.oldLookalike])
      utimesSync(path, past, past);
    const removed = await store.removeStaleTemporaryFiles(new Date(Date.now() - 3_600_000));
    expect(removed).toBe(2);
    expect(existsSync(files.oldTemporary)).toBe(false);
    expect(existsSync(files.oldFigureTemporary)).toBe(false);
    expect(existsSync(files.freshTemporary)).toBe(true);
    expect(existsSync(files.oldBlob)).toBe(true);
    expect(existsSync(files.oldLookalike)).toBe(true);
  });
});
