import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../../config/load-config.js';
import { packageVersion } from '../../platform/version.js';
import { CliError } from '../cli-error.js';
import { cliConfig } from '../context.js';
import { backupDataDir, type EmbeddedStores, restoreDataDir } from '../data-dir-backup.js';
import { output } from '../output.js';

/**
 * `alexandria backup <dir>` and `alexandria restore <dir>`: the embedded stores of the data folder
 * (SQLite project store and paper index, blob folder), backed up while the server runs and restored
 * into a data folder without data (docs/operations.md). PostgreSQL and S3 have their own tools.
 */
export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('Back up the data folder (SQLite stores and blobs) into a new folder; safe while serving')
    .argument('<dir>', 'a new or empty folder for the backup')
    .action(async (target: string) => {
      const config = cliConfig();
      const stores = embeddedStores(config, 'backup');
      const manifest = await backupDataDir(stores, resolve(target), packageVersion(), (step) =>
        output.error(`backup: ${step}`),
      ).catch(asCliError);
      output.line(
        `Backed up ${stores.dataDir} into ${resolve(target)} (${[
          'project store',
          manifest.databases.index ? 'paper index' : undefined,
          manifest.blobs ? 'blobs' : undefined,
        ]
          .filter(Boolean)
          .join(', ')}). Restore it with: alexandria restore ${target}`,
      );
    });

  program
    .command('restore')
    .description('Restore a backup made by `alexandria backup` into a data folder that holds no data yet')
    .argument('<dir>', 'the backup folder')
    .action(async (source: string) => {
      const config = cliConfig();
      const stores = embeddedStores(config, 'restore');
      await restoreDataDir(resolve(source), stores, (step) => output.error(`restore: ${step}`)).catch(
        asCliError,
      );
      output.line(
        `Restored ${resolve(source)} into ${stores.dataDir}. Start the server with: alexandria serve`,
      );
    });
}

/** The embedded stores' paths; with PostgreSQL or S3 configured, what to use instead. */
function embeddedStores(config: Config, verb: 'backup' | 'restore'): EmbeddedStores {
  const { storage } = config;
  if (storage.databaseUrl || storage.s3Bucket) {
    throw new CliError(
      `alexandria ${verb} handles the embedded stores (SQLite files and the blob folder); with DATABASE_URL or ALEXANDRIA_S3_BUCKET set, ${verb} PostgreSQL with pg_dump/pg_restore and the bucket with your object store's tools (docs/operations.md).`,
      2,
    );
  }
  const dataDir = resolve(storage.dataDir);
  return {
    dataDir,
    projectsPath: join(dataDir, 'alexandria.db'),
    indexPath: resolve(config.search.indexPath ?? join(dataDir, 'index.db')),
  };
}

function asCliError(error: unknown): never {
  if (error instanceof Error && !(error as NodeJS.ErrnoException).code) throw new CliError(error.message);
  throw error;
}
