import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FsBlobStore } from '../adapters/fs/fs-blob-store.js';
import { createSqlitePaperIndex } from '../adapters/sqlite/sqlite-paper-index.js';
import { createSqliteProjectStore } from '../adapters/sqlite/sqlite-project-store.js';
import type { Config } from '../config/load-config.js';
import type { DependencyHealth } from '../platform/dependency-health.js';
import type { Logger } from '../platform/logger.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { PaperIndex } from '../ports/paper-index.js';
import type { ProjectStore } from '../ports/project-store.js';
import { BlobSweeper } from '../services/storage/blob-sweeper.js';
import { ContentRelease } from '../services/storage/content-release.js';
import { postgresPoolOptions, standbyRoutingOptions } from './postgres-options.js';

/**
 * The local paper/patent index. With DATABASE_URL: one index in PostgreSQL shared by every replica
 * (searches on ALEXANDRIA_DATABASE_READ_URLS when set). Otherwise its own SQLite file (default
 * `<data dir>/index.db`, WAL), so that `alexandria ingest` can write it while the server reads.
 * Used by the container and by the CLI.
 */
export async function openPaperIndex(
  config: Config,
  logger: Logger,
  health?: DependencyHealth,
): Promise<PaperIndex> {
  if (config.storage.databaseUrl) {
    // pg and the PostgreSQL adapters are loaded only with DATABASE_URL (decision 0061).
    const { createPostgresPaperIndex } = await import('../adapters/postgres/postgres-paper-index.js');
    return createPostgresPaperIndex(config.storage.databaseUrl, {
      readUrls: config.storage.databaseReadUrls,
      onConversion: ({ records, ms }) =>
        logger.warn(
          { records, ms: Math.round(ms) },
          'converted the PostgreSQL paper index from the tsvector layout to the inverted layout (decision 0058)',
        ),
      ...postgresPoolOptions(config, logger, 'paper index', health),
      standby: standbyRoutingOptions(config, logger),
    });
  }
  const path = config.search.indexPath ?? join(resolve(config.storage.dataDir), 'index.db');
  return createSqlitePaperIndex(resolve(path), {
    mmapBytes: config.search.mmapMb * 1024 * 1024,
    searchThreads: config.search.threads,
    shards: config.search.shards,
  });
}

/**
 * The project store (tenants, keys, projects, documents): PostgreSQL with DATABASE_URL, else
 * `<data dir>/alexandria.db`. Used by the container and by the CLI.
 */
export async function openProjectStore(
  config: Config,
  logger: Logger,
  health?: DependencyHealth,
): Promise<ProjectStore> {
  if (!config.storage.databaseUrl) {
    return createSqliteProjectStore(join(resolve(config.storage.dataDir), 'alexandria.db'));
  }
  const { createPostgresProjectStore } = await import('../adapters/postgres/postgres-project-store.js');
  return createPostgresProjectStore(
    config.storage.databaseUrl,
    postgresPoolOptions(config, logger, 'project store', health),
  );
}

/** Where PDFs, parses, figures and vectors are kept; `shared` when every replica sees the same. */
export interface BlobStorage {
  blobs: BlobStore;
  /** An S3 bucket (a dependency /readyz and /metrics report), not the data folder. */
  shared: boolean;
  close(): void;
}

/**
 * The blob store: an S3 bucket when ALEXANDRIA_S3_BUCKET is set (outages reported to `health`,
 * decision 0046), else `<data dir>/blobs`. The AWS SDK is loaded only for a bucket (decision 0061).
 */
export async function createBlobStorage(
  storage: Config['storage'],
  dataDir: string,
  health: DependencyHealth,
): Promise<BlobStorage> {
  if (!storage.s3Bucket) {
    return { blobs: new FsBlobStore(join(dataDir, 'blobs')), shared: false, close() {} };
  }
  const { S3BlobStore } = await import('../adapters/s3/s3-blob-store.js');
  const s3 = new S3BlobStore({
    bucket: storage.s3Bucket,
    region: storage.s3Region,
    endpoint: storage.s3Endpoint,
    accessKeyId: storage.s3AccessKeyId,
    secretAccessKey: storage.s3SecretAccessKey,
    health: {
      onOutage: (error) => health.failed('blob_store', 'request', error),
      onAnswered: () => health.answered('blob_store'),
    },
  });
  return { blobs: s3, shared: true, close: () => s3.close() };
}

/**
 * The figure-link signing secret: ALEXANDRIA_SIGNING_SECRET, else generated once into the project
 * store, so every replica on one PostgreSQL database signs and verifies links alike. A secret that
 * an older release kept in `<data dir>/secret` is the one proposed, so links and Zotero credentials
 * made before keep working; the file is read, never written (docs/decisions/0021-replica-shared-state.md).
 */
export async function signingSecretOf(
  auth: Config['auth'],
  projects: ProjectStore,
  dataDir: string,
): Promise<string> {
  if (auth.signingSecret !== undefined) return auth.signingSecret;
  let proposed = randomBytes(32).toString('base64url');
  try {
    const legacy = (await readFile(join(dataDir, 'secret'), 'utf8')).trim();
    if (legacy.length >= 32) proposed = legacy;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return projects.ensureSetting('signing_secret', proposed);
}

/**
 * Frees the blobs of content no tenant stores any more (decision 0041). `onReleased` adds a
 * listener told of each freed hash: the processes' memory caches of that content drop it.
 */
export function createContentRelease(projects: ProjectStore, blobs: BlobStore, logger: Logger) {
  const listeners: Array<(sha256: string) => void> = [];
  const release = new ContentRelease({
    store: projects,
    blobs,
    logger,
    onReleased: (sha256) => {
      for (const listener of listeners) listener(sha256);
    },
  });
  return { release, onReleased: (listener: (sha256: string) => void) => void listeners.push(listener) };
}

/**
 * The sweep of blobs nothing references: left by kills, by older releases, or caches past their
 * retention (docs/decisions/0020-crash-test-and-soak.md, 0041-deletion-that-frees-storage.md).
 * Only a long-running server (`background`) sweeps, every ALEXANDRIA_BLOB_SWEEP_INTERVAL_MINUTES
 * (0: never); `lastReport` is the last sweep's, for `GET /api/storage`.
 */
export function startBlobSweeper(
  config: Config,
  dependencies: {
    blobs: BlobStore;
    projects: ProjectStore;
    release: ContentRelease;
    parserVersion: string;
    logger: Logger;
    background: boolean;
  },
): { lastReport: () => BlobSweeper['lastReport']; close(): Promise<void> } {
  const { storage } = config;
  if (!dependencies.background || storage.blobSweepIntervalMinutes <= 0) {
    return { lastReport: () => undefined, close: async () => {} };
  }
  const graceMs = storage.blobSweepGraceMinutes * 60_000;
  const sweeper = new BlobSweeper({
    blobs: dependencies.blobs,
    store: dependencies.projects,
    release: dependencies.release,
    graceMs,
    // What no document stores is a cache, kept as long as a url read remembers its content.
    cacheRetentionMs: Math.max(graceMs, config.documents.urlCacheTtlSeconds * 1000),
    parserVersion: dependencies.parserVersion,
    intervalMs: storage.blobSweepIntervalMinutes * 60_000,
    logger: dependencies.logger,
  });
  sweeper.start();
  return { lastReport: () => sweeper.lastReport, close: () => sweeper.stop() };
}
