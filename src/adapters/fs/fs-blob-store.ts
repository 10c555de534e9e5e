import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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
    await mkdir(dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, data, { flush: true });
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
    await rm(this.path(key), { force: true });
  }

  async *list(prefix: string): AsyncIterable<BlobListing> {
    assertBlobKey(prefix);
    const folders = [prefix];
    // Depth-first, one folder read at a time, so a large store is never held in memory at once.
    for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
      const entries = await readdir(join(this.root, folder), { withFileTypes: true }).catch(
        (error: unknown) => {
          if (isMissing(error)) return [];
          throw error;
        },
      );
      for (const entry of entries) {
        const key = `${folder}/${entry.name}`;
        if (entry.isDirectory()) folders.push(key);
        if (!entry.isFile() || temporaryFile.test(entry.name)) continue;
        // Deleted since the folder was read: not listed.
        const stats = await stat(join(this.root, key)).catch((error: unknown) => {
          if (isMissing(error)) return null;
          throw error;
        });
        if (stats) yield { key, lastModified: stats.mtime };
      }
    }
  }

  async ping(): Promise<void> {
    await this.put('.ping', new Uint8Array([1]));
  }
}
