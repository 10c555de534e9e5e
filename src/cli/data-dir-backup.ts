import { cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The manifest a backup folder starts with; `restore` refuses a folder without it. */
export const manifestName = 'alexandria-backup.json';

export interface BackupManifest {
  format: 1;
  /** The release that wrote the backup. */
  version: string;
  createdAt: string;
  /** The SQLite databases in the folder, by their role. */
  databases: { projects: string; index: string | null };
  /** Whether the folder holds `blobs/` (stored PDFs, parses, figures, passage vectors). */
  blobs: boolean;
  /** Whether it holds the legacy `secret` file of releases that kept the signing secret there. */
  secret: boolean;
}

/** Where the embedded stores live: the project store, the paper index and the blob folder. */
export interface EmbeddedStores {
  dataDir: string;
  projectsPath: string;
  indexPath: string;
}

/**
 * Copies the embedded stores into an empty folder while the server may be running: each SQLite
 * database through SQLite's online backup API (a consistent snapshot however much is written
 * meanwhile), the project store first, then the blob folder. Blobs are written before the rows that
 * name them and never changed afterwards, so every row of the copied database finds its blob —
 * unless the document was deleted while the blobs were being copied: such rows are then deleted
 * from the copy, their entries kept without a PDF, as the deletion left them (decision 0041). A
 * blob written after the snapshot is copied too and is merely unreferenced (the sweep removes it).
 */
export async function backupDataDir(
  stores: EmbeddedStores,
  target: string,
  version: string,
  onStep: (step: string) => void = () => {},
): Promise<BackupManifest> {
  await mkdir(target, { recursive: true });
  if ((await readdir(target)).length > 0) {
    throw new Error(`${target} is not empty; give a new or empty folder for the backup`);
  }
  if (!(await exists(stores.projectsPath))) {
    throw new Error(
      `${stores.projectsPath} does not exist: there is no data to back up in ${stores.dataDir}`,
    );
  }
  onStep(`project store ${stores.projectsPath}`);
  await snapshot(stores.projectsPath, join(target, 'alexandria.db'));
  const hasIndex = await exists(stores.indexPath);
  if (hasIndex) {
    onStep(`paper index ${stores.indexPath}`);
    await snapshot(stores.indexPath, join(target, 'index.db'));
  }
  const blobs = join(stores.dataDir, 'blobs');
  const hasBlobs = await exists(blobs);
  if (hasBlobs) {
    onStep(`blobs ${blobs}`);
    // A blob being written is `<key>.<12 hex>.tmp` until it is renamed into place: not data yet.
    await cp(blobs, join(target, 'blobs'), {
      recursive: true,
      filter: (path) => !/\.[0-9a-f]{12}\.tmp$/.test(path),
    });
  }
  const dropped = await dropDocumentsWithoutBlob(join(target, 'alexandria.db'), join(target, 'blobs'));
  if (dropped > 0)
    onStep(`${dropped} PDF(s) deleted while the backup ran: left out, their entries kept without a PDF`);
  const secret = join(stores.dataDir, 'secret');
  const hasSecret = await exists(secret);
  if (hasSecret) await cp(secret, join(target, 'secret'));
  const manifest: BackupManifest = {
    format: 1,
    version,
    createdAt: new Date().toISOString(),
    databases: { projects: 'alexandria.db', index: hasIndex ? 'index.db' : null },
    blobs: hasBlobs,
    secret: hasSecret,
  };
  // Written last: a folder with a manifest is a finished backup.
  await writeFile(join(target, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Puts a backup made by `backupDataDir` in place as the stores of a data folder that holds none
 * (never over live data: the server must not run on it), checking each database's integrity first.
 */
export async function restoreDataDir(
  source: string,
  stores: EmbeddedStores,
  onStep: (step: string) => void = () => {},
): Promise<BackupManifest> {
  const manifest = await readManifest(source);
  for (const path of [stores.projectsPath, stores.indexPath, join(stores.dataDir, 'blobs')]) {
    if (await exists(path)) {
      throw new Error(
        `${path} already exists: restore only into a data folder without data (stop the server, move the old folder aside, then restore)`,
      );
    }
  }
  const databases: Array<[string, string]> = [[manifest.databases.projects, stores.projectsPath]];
  if (manifest.databases.index) databases.push([manifest.databases.index, stores.indexPath]);
  for (const [name, destination] of databases) {
    const from = join(source, name);
    checkIntegrity(from);
    onStep(`${name} → ${destination}`);
    await mkdir(join(destination, '..'), { recursive: true });
    await cp(from, destination, { errorOnExist: true, force: false });
  }
  if (manifest.blobs) {
    onStep(`blobs → ${join(stores.dataDir, 'blobs')}`);
    await cp(join(source, 'blobs'), join(stores.dataDir, 'blobs'), { recursive: true, errorOnExist: true });
  }
  const secret = join(stores.dataDir, 'secret');
  if (manifest.secret && !(await exists(secret))) await cp(join(source, 'secret'), secret);
  return manifest;
}

async function readManifest(source: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(source, manifestName), 'utf8');
  } catch {
    throw new Error(
      `${source} holds no ${manifestName}: it is not a finished backup made by \`alexandria backup\``,
    );
  }
  const manifest = JSON.parse(text) as Partial<BackupManifest>;
  if (manifest.format !== 1 || typeof manifest.databases?.projects !== 'string') {
    throw new Error(`${join(source, manifestName)} is not a backup manifest this release can read`);
  }
  return manifest as BackupManifest;
}

/**
 * In the copied project store, deletes the document rows whose PDF is not in the copied blobs (a
 * deletion between the snapshot and the copy of the blobs) and detaches their entries, in one
 * transaction; returns how many rows went.
 */
async function dropDocumentsWithoutBlob(projectsPath: string, blobs: string): Promise<number> {
  const db = new Database(projectsPath);
  try {
    const rows = db.prepare('SELECT tenant_id, id, blob_key FROM documents').all() as Array<{
      tenant_id: string;
      id: string;
      blob_key: string;
    }>;
    const missing: typeof rows = [];
    for (const row of rows) if (!(await exists(join(blobs, row.blob_key)))) missing.push(row);
    const detach = db.prepare(
      'UPDATE project_entries SET document_id = NULL WHERE tenant_id = ? AND document_id = ?',
    );
    const remove = db.prepare('DELETE FROM documents WHERE tenant_id = ? AND id = ?');
    db.transaction(() => {
      for (const row of missing) {
        detach.run(row.tenant_id, row.id);
        remove.run(row.tenant_id, row.id);
      }
    })();
    return missing.length;
  } finally {
    db.close();
  }
}

/** A consistent copy of a live SQLite database (WAL included), by SQLite's online backup API. */
async function snapshot(path: string, destination: string): Promise<void> {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(destination);
  } finally {
    db.close();
  }
}

function checkIntegrity(path: string): void {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const result = db.pragma('quick_check', { simple: true });
    if (result !== 'ok')
      throw new Error(`${path} is damaged (quick_check: ${String(result)}); restore another backup`);
  } finally {
    db.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
