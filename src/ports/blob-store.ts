/** One stored blob as `list` reports it. */
export interface BlobListing {
  key: string;
  /** When the blob was last written (file mtime, S3 `LastModified`). */
  lastModified: Date;
  /** Its length in bytes. */
  size: number;
}

/**
 * Byte storage for documents (PDFs) and what is derived from them (parses, figures, drawn pages,
 * passage vectors; the layout: `src/services/storage/blob-layout.ts`). Keys are relative paths made of
 * `[A-Za-z0-9._/-]` segments (never `..`). Writes are atomic: a reader sees the old value, the new
 * value, or nothing, never a partial file. Adapters: filesystem (embedded), S3 (scale-out); both pass
 * `test/contract/blob-store.contract.ts`.
 */
export interface BlobStore {
  /** Writes (or overwrites) the bytes at `key`. */
  put(key: string, data: Uint8Array, options?: { contentType?: string }): Promise<void>;
  /** The bytes at `key`, or null when absent. */
  get(key: string): Promise<Uint8Array | null>;
  has(key: string): Promise<boolean>;
  /**
   * Deletes `key`; absent keys are not an error. Folders a delete leaves empty may go too (the
   * filesystem removes them up to the store's root), which a concurrent `put` into them survives.
   */
  delete(key: string): Promise<void>;
  /**
   * Every blob whose key lies under the folder `prefix` (e.g. `documents`; not a mere string prefix,
   * so `documents` never lists `documents-old/x`), in no particular order, read page by page. A blob
   * written or deleted while the listing runs may or may not appear. Temporary files of writes in
   * progress are not blobs and are never listed. An absent folder lists nothing.
   */
  list(prefix: string): AsyncIterable<BlobListing>;
  /** Throws when the store cannot be written (readiness probe). */
  ping(): Promise<void>;
  /**
   * Deletes the temporary files of writes that never finished (a kill between writing and
   * renaming) last modified before `olderThan`, anywhere in the store; returns how many. Only for
   * adapters whose writes go through such files (the filesystem); S3 writes are atomic.
   */
  removeStaleTemporaryFiles?(olderThan: Date): Promise<number>;
}

const keyPattern = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Throws on a key that could escape the store's root; shared by every adapter. */
export function assertBlobKey(key: string): void {
  if (!keyPattern.test(key) || key.split('/').some((part) => part === '..' || part === '.')) {
    throw new Error(`Invalid blob key: ${JSON.stringify(key)}`);
  }
}
