import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/adapters/s3/s3-blob-store.js';
import { runBlobStoreContract } from './blob-store.contract.js';

// A real S3 API on loopback (s3rver), with one bucket.
let server: S3rver;
let endpoint = '';
beforeAll(async () => {
  server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: mkdtempSync(join(tmpdir(), 'alexandria-s3-')),
    configureBuckets: [{ name: 'alexandria-test', configs: [] }],
  });
  const address = (await server.run()) as { port: number };
  endpoint = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await server.close();
});

runBlobStoreContract(
  'S3 (s3rver)',
  async () =>
    new S3BlobStore({
      bucket: 'alexandria-test',
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      prefix: `run-${Math.random().toString(36).slice(2)}/`,
    }),
);

describe('S3BlobStore', () => {
  it('lists a folder of more keys than fit in one page', async () => {
    const store = new S3BlobStore({
      bucket: 'alexandria-test',
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      prefix: `paging-${Math.random().toString(36).slice(2)}/`,
      listPageSize: 2,
    });
    const keys = ['a', 'b', 'c', 'd', 'e'].map((name) => `documents/${name}/${name}.pdf`);
    for (const key of keys) await store.put(key, new Uint8Array([1]));
    const listed = [];
    for await (const blob of store.list('documents')) listed.push(blob.key);
    expect(listed.sort()).toEqual(keys);
    store.close();
  });
});
