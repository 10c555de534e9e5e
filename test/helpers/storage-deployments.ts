import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { FsBlobStore } from '../../src/adapters/fs/fs-blob-store.js';
import { createPostgresProjectStore } from '../../src/adapters/postgres/postgres-project-store.js';
import { S3BlobStore } from '../../src/adapters/s3/s3-blob-store.js';
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import type { DocumentRecord } from '../../src/domain/project.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import type { ProjectStore } from '../../src/ports/project-store.js';
import { documentBlobKey } from '../../src/services/storage/blob-layout.js';
import { needsPostgres } from './requirements.js';
import { dropSchema, testPostgresUrl, uniqueSchema } from './services.js';

/** A project store and a blob store of one deployment, fresh and empty; `close` ends and removes both. */
export interface StorageDeployment {
  store: ProjectStore;
  blobs: BlobStore;
  close(): Promise<void>;
}

/**
 * The two deployments storage tests run on: the embedded one (a SQLite file and a blob folder) and
 * the scale-out one (PostgreSQL in a schema of its own, and a real S3 API on loopback, s3rver, paging
 * its listings three keys at a time so paging is exercised). Without a reachable PostgreSQL the
 * second is left out, said in one line by the skipped-tests reporter (test/helpers/requirements.ts).
 */
const postgresMissing = await needsPostgres();

export const storageDeployments: Array<{
  name: string;
  missing?: boolean;
  open: () => Promise<StorageDeployment>;
}> = [
  {
    name: 'filesystem and SQLite',
    open: async () => {
      const folder = mkdtempSync(join(tmpdir(), 'alexandria-storage-'));
      const store = await createSqliteProjectStore(join(folder, 'alexandria.db'));
      return {
        store,
        blobs: new FsBlobStore(join(folder, 'blobs')),
        close: async () => {
          await store.close();
          await rm(folder, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'S3 and PostgreSQL',
    missing: postgresMissing,
    open: async () => {
      const folder = mkdtempSync(join(tmpdir(), 'alexandria-storage-s3-'));
      const s3 = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: folder,
        configureBuckets: [{ name: 'storage', configs: [] }],
      });
      const { port } = (await s3.run()) as { port: number };
      const schema = uniqueSchema('storage');
      const store = await createPostgresProjectStore(testPostgresUrl, { schema, maxConnections: 3 });
      const blobs = new S3BlobStore({
        bucket: 'storage',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        prefix: 'alexandria/',
        listPageSize: 3,
      });
      return {
        store,
        blobs,
        close: async () => {
          await store.close();
          blobs.close();
          await s3.close();
          await dropSchema(schema);
          await rm(folder, { recursive: true, force: true });
        },
      };
    },
  },
].filter((deployment) => !deployment.missing);

/** The document row `add_to_project` would file for content `sha256` of `tenantId`. */
export function documentRecordOf(tenantId: string, sha256: string, byteSize = 3): DocumentRecord {
  return {
    id: `doc_${sha256.slice(0, 24)}`,
    tenantId,
    sha256,
    blobKey: documentBlobKey(sha256),
    byteSize,
    contentType: 'application/pdf',
    filename: null,
    sourceUrl: null,
    createdAt: new Date().toISOString(),
  };
}
