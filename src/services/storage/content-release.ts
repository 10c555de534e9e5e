import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { contentFolder, derivedAreas, documentBlobKey } from './blob-layout.js';

export interface ContentReleaseOptions {
  store: Pick<ProjectStore, 'claimContentRelease' | 'endContentRelease'>;
  blobs: BlobStore;
  /** Told of each hash being released (before and after its blobs go): drop it from memory caches. */
  onReleased?: (sha256: string) => void;
  logger?: Logger;
  /** Releases run at once by `release` (default 4). */
  concurrency?: number;
}

/**
 * Frees the blobs of content no tenant stores any more: the PDF, its parse, figures, drawn pages,
 * reference links and passage vectors (everything `blob-layout.ts` files under its hash).
 *
 * Each hash is first claimed (`ProjectStore.claimContentRelease`: only while no document row of any
 * tenant has it, and marked while its blobs go), then its blobs are deleted — the PDF first, so an
 * add that files the same bytes meanwhile and waits for the mark to end finds them gone and puts
 * them back — then the mark is removed. A kill at any point leaves either the rows as they were, or
 * no row and a mark (or, between a removal's commit and the claim, no row and no mark): the sweep
 * (`blob-sweep.ts`) finishes both.
 */
export class ContentRelease {
  constructor(private readonly options: ContentReleaseOptions) {}

  /**
   * Releases each of `sha256s` that no tenant stores; returns those released. Never throws: what
   * fails is logged and left to the sweep.
   */
  async release(sha256s: readonly string[]): Promise<string[]> {
    const queue = [...new Set(sha256s)];
    const released: string[] = [];
    const worker = async () => {
      for (let sha256 = queue.shift(); sha256 !== undefined; sha256 = queue.shift()) {
        try {
          if (await this.releaseOne(sha256)) released.push(sha256);
        } catch (error) {
          this.options.logger?.warn(
            { err: error, sha256 },
            'freeing the blobs of a deleted document failed; the sweep will finish it',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(queue.length, this.options.concurrency ?? 4) }, worker));
    return released;
  }

  /** Claims and frees one hash; false when a tenant stores it (nothing is deleted). */
  async releaseOne(sha256: string): Promise<boolean> {
    if (!(await this.options.store.claimContentRelease(sha256))) return false;
    this.options.onReleased?.(sha256);
    await deleteContentBlobs(this.options.blobs, sha256);
    this.options.onReleased?.(sha256);
    await this.options.store.endContentRelease(sha256);
    return true;
  }
}

/**
 * Deletes every blob filed under content `sha256`: the PDF, then each derived folder. Returns how
 * many blobs it deleted (the PDF counted when it was there).
 */
export async function deleteContentBlobs(blobs: BlobStore, sha256: string): Promise<number> {
  let deleted = 0;
  const pdf = documentBlobKey(sha256);
  if (await blobs.has(pdf)) deleted += 1;
  await blobs.delete(pdf);
  for (const area of derivedAreas) {
    for await (const blob of blobs.list(contentFolder(area, sha256))) {
      await blobs.delete(blob.key);
      deleted += 1;
    }
  }
  return deleted;
}
