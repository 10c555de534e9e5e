import { AppError } from '../../domain/errors.js';
import type { DocumentRecord } from '../../domain/project.js';
import { sha256Hex } from '../../platform/ids.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { documentBlobKey } from '../storage/blob-layout.js';
import { ContentRelease } from '../storage/content-release.js';

/** `doc_<first 24 hex of the hash>`: the same bytes get the same id, so adds are idempotent. */
export function documentIdOf(sha256: string): string {
  return `doc_${sha256.slice(0, 24)}`;
}

/** True when the bytes start (within the first KiB, as PDF readers allow) with `%PDF-`. */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

/** How often an add whose content is being released looks again whether the release ended, in ms. */
const releasePollMs = 50;

export interface DocumentStorageOptions {
  /**
   * Releases content no tenant stores (a PDF whose parse failed, an upload no entry took); default:
   * one of its own over the same store and blobs (without the memory caches to drop).
   */
  release?: Pick<ContentRelease, 'release'> | undefined;
  now?: () => Date;
  /**
   * Longest an add waits for a release of the same content to end before it puts the bytes back
   * anyway, in ms (default 30 s): a release deletes the PDF first, within milliseconds, and a
   * release that stays marked longer was cut short by a kill (the sweep finishes it later).
   */
  releaseWaitMs?: number;
}

/**
 * A tenant's stored PDFs: bytes content-addressed in the BlobStore, one metadata row per
 * (tenant, hash), written with the entry that files it (so a row exists exactly while an entry
 * holds it). The blob is written before the row, so a row never points at missing bytes; a kill
 * between the two leaves a blob no row references, which the sweep removes once older than its
 * grace period. A release of the same content (its last holder removed at this moment) is the one
 * case where the bytes may go after the row is written: `settle` waits for it and puts them back.
 */
export class DocumentStorage {
  private readonly now: () => Date;
  private readonly release: Pick<ContentRelease, 'release'>;

  constructor(
    private readonly releases: Pick<
      ProjectStore,
      'contentReleasePending' | 'claimContentRelease' | 'endContentRelease'
    >,
    private readonly blobs: BlobStore,
    private readonly options: DocumentStorageOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.release = options.release ?? new ContentRelease({ store: releases, blobs });
  }

  /**
   * Stores the PDF's bytes (idempotent by content) and returns the record to file them with
   * (`EntryInput.document`); no row is written here. Call `settle` once the entry is filed.
   */
  async storeBytes(
    tenantId: string,
    bytes: Uint8Array,
    origin: { filename?: string | undefined; sourceUrl?: string | undefined; sha256?: string },
  ): Promise<DocumentRecord> {
    const sha256 = origin.sha256 ?? sha256Hex(bytes);
    const blobKey = documentBlobKey(sha256);
    if (!(await this.blobs.has(blobKey)))
      await this.blobs.put(blobKey, bytes, { contentType: 'application/pdf' });
    return {
      id: documentIdOf(sha256),
      tenantId,
      sha256,
      blobKey,
      byteSize: bytes.byteLength,
      contentType: 'application/pdf',
      filename: origin.filename?.slice(0, 255) ?? null,
      sourceUrl: origin.sourceUrl ?? null,
      createdAt: this.now().toISOString(),
    };
  }

  /**
   * After the row of `record` was written with its entry: makes sure its bytes are stored. They may
   * be gone when they were found rather than written — an old blob a kill left without its row,
   * which a sweep deleted between `store` and the row — or when a release of the same content was
   * claimed before the row (its mark is then visible here): wait for that release to end, then put
   * the bytes back.
   */
  async settle(record: DocumentRecord, bytes: Uint8Array): Promise<void> {
    const waitUntil = Date.now() + (this.options.releaseWaitMs ?? 30_000);
    while ((await this.releases.contentReleasePending(record.sha256)) && Date.now() < waitUntil) {
      await new Promise((resolve) => setTimeout(resolve, releasePollMs));
    }
    if (!(await this.blobs.has(record.blobKey))) {
      await this.blobs.put(record.blobKey, bytes, { contentType: 'application/pdf' });
    }
  }

  /**
   * Stores a PDF's bytes without a row yet, for a parse job in another process to read (the row
   * follows once the parse succeeded). True when this call wrote them.
   */
  async putBytes(sha256: string, bytes: Uint8Array): Promise<boolean> {
    const blobKey = documentBlobKey(sha256);
    if (await this.blobs.has(blobKey)) return false;
    await this.blobs.put(blobKey, bytes, { contentType: 'application/pdf' });
    return true;
  }

  /**
   * Frees stored bytes (and what was derived from them) that no row of any tenant references: a
   * PDF whose parse failed, an upload no entry took. Whatever is missed, the sweep removes.
   */
  async discardUnreferenced(sha256: string): Promise<void> {
    await this.release.release([sha256]);
  }

  /** The bytes of a stored document. */
  async bytes(record: DocumentRecord): Promise<Uint8Array> {
    const bytes = await this.blobs.get(record.blobKey);
    if (!bytes)
      throw new AppError('internal', `The bytes of document ${record.id} are missing from blob storage`);
    return bytes;
  }
}
