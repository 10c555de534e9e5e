import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { assertBlobKey, type BlobListing, type BlobStore } from '../../ports/blob-store.js';

/** `<key>.<12 hex>.tmp`: the file a `put` writes before renaming it over the key. */
const temporaryFile = /\.[0-9a-f]{12}\.tmp$/;

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Blobs as files under one root folder. A write goes to a temporary file in the same folder, is
 * fsynced, then renamed over the target, so readers never see a partial file.
 */
export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    assertBlobKey(key);
    return join(this.root, key);
  }

  async put(key: string, data: Uint8Array): Promise<void> {
    const target = this.path(key);
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    // A delete of the folder's last file removes the folder, and may do so between our mkdir and
    // our write: make it again and retry (the temporary file then keeps it from being removed).
    for (let attempt = 1; ; attempt += 1) {
      await mkdir(dirname(target), { recursive: true });
      try {
        await writeFile(temporary, data, { flush: true });
        break;
      } catch (error) {
        await rm(temporary, { force: true });
        if (!isMissing(error) || attempt === 5) throw error;
      }
    }
    try {
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.path(key)));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      return (await stat(this.path(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.path(key);
    await rm(path, { force: true });
    await this.removeEmptyFolders(dirname(path));
  }

  /**
   * Removes `folder` and its parents while they are empty, up to the root: content folders
   * (`pages/ab/<hash>/r1`) would otherwise stay behind every released document forever.
   */
  private async removeEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; relative(this.root, current) !== ''; current = dirname(current)) {
      if (relative(this.root, current).startsWith('..')) return;
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or gone): the folders above it are not empty either
      }
    }
  }

  async *list(prefix: string): AsyncIterable<BlobListing> {
    assertBlobKey(prefix);
    for await (const file of this.files(prefix)) {
      if (!temporaryFile.test(file.key)) yield file;
    }
  }

  async removeStaleTemporaryFiles(olderThan: Date): Promise<number> {
    let removed = 0;
    for await (const file of this.files('')) {
      if (!temporaryFile.test(file.key) || file.lastModified >= olderThan) continue;
      await rm(join(this.root, file.key), { force: true });
      removed += 1;
    }
    return removed;
  }

  /** Every file under `folder` ('' = the root) with its mtime, temporary files included. */
  private async *files(folder: string): AsyncGenerator<BlobListing> {
    const folders = [folder];
    // Depth-first, one folder read at a time, so a large store is never held in memory at once.
    for (let current = folders.pop(); current !== undefined; current = folders.pop()) {
      const entries = await readdir(join(this.root, current), { withFileTypes: true }).catch(
        (error: unknown) => {
          if (isMissing(error)) return [];
          throw error;
        },
      );
      for (const entry of entries) {
        const key = current === '' ? entry.name : `${current}/${entry.name}`;
        if (entry.isDirectory()) folders.push(key);
        if (!entry.isFile()) continue;
        // Deleted since the folder was read: not listed.
        const stats = await stat(join(this.root, key)).catch((error: unknown) => {
          if (isMissing(error)) return null;
          throw error;
        });
        if (stats) yield { key, lastModified: stats.mtime, size: stats.size };
      }
    }
  }

  async ping(): Promise<void> {
    await this.put('.ping', new Uint8Array([1]));
  }
}
