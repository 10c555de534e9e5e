import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
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
});
