import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';
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
