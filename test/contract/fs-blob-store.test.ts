import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { runBlobStoreContract } from './blob-store.contract.js';

runBlobStoreContract(
  'filesystem',
  async () => new FsBlobStore(mkdtempSync(join(tmpdir(), 'alexandria-blobs-'))),
);
