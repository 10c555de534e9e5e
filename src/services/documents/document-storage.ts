import { AppError } from '../../domain/errors.js';
import type { DocumentRecord } from '../../domain/project.js';
import { sha256Hex } from '../../platform/ids.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { ProjectStore } from '../../ports/project-store.js';
import { documentBlobKey } from './document-text.js';

/** `doc_<first 24 hex of the hash>`: the same bytes get the same id, so adds are idempotent. */
export function documentIdOf(sha256: string): string {
  return `doc_${sha256.slice(0, 24)}`;
}

/** True when the bytes start (within the first KiB, as PDF readers allow) with `%PDF-`. */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

/**
 * A tenant's stored PDFs: bytes content-addressed in the BlobStore, one metadata row per
 * (tenant, hash). The blob is written before the row, so a row never points at missing bytes; a
 * kill between the two leaves a blob no row references, which `sweepUnreferencedDocuments` removes
 * once it is older than its grace period.
 */
export class DocumentStorage {
  constructor(
    private readonly store: ProjectStore,
    private readonly blobs: BlobStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Stores the PDF (idempotent by content) and returns its record. */
  async save(
    tenantId: string,
    bytes: Uint8Array,
    origin: { filename?: string | undefined; sourceUrl?: string | undefined; sha256?: string },
  ): Promise<DocumentRecord> {
    const sha256 = origin.sha256 ?? sha256Hex(bytes);
    const existing = await this.store.findDocumentBySha256(tenantId, sha256);
    const blobKey = documentBlobKey(sha256);
    const written = !(await this.blobs.has(blobKey));
    if (written) await this.blobs.put(blobKey, bytes, { contentType: 'application/pdf' });
    if (existing) return existing;
    const record = await this.store.putDocument({
      id: documentIdOf(sha256),
      tenantId,
      sha256,
      blobKey,
      byteSize: bytes.byteLength,
      contentType: 'application/pdf',
      filename: origin.filename?.slice(0, 255) ?? null,
      sourceUrl: origin.sourceUrl ?? null,
      createdAt: this.now().toISOString(),
    });
    // A blob found rather than written may be an old one a kill left unreferenced, which a sweep
    // (here or on another instance) can delete between `has` and the row insert: put it back.
    if (!written && !(await this.blobs.has(blobKey)))
      await this.blobs.put(blobKey, bytes, { contentType: 'application/pdf' });
    return record;
  }

  /**
   * Stores a PDF's bytes without a row yet, for a parse job in another process to read (the row
   * follows with `save` once the parse succeeded). True when this call wrote them.
   */
  async putBytes(sha256: string, bytes: Uint8Array): Promise<boolean> {
    const blobKey = documentBlobKey(sha256);
    if (await this.blobs.has(blobKey)) return false;
    await this.blobs.put(blobKey, bytes, { contentType: 'application/pdf' });
    return true;
  }

  /**
   * Removes bytes stored by `putBytes` whose parse failed, unless a row of any tenant references
   * them (filed earlier, when another parser read them). Whatever is missed, the sweep removes.
   */
  async discardUnreferenced(sha256: string): Promise<void> {
    const blobKey = documentBlobKey(sha256);
    if ((await this.store.referencedBlobKeys([blobKey])).has(blobKey)) return;
    await this.blobs.delete(blobKey);
  }

  /** The bytes of a stored document. */
  async bytes(record: DocumentRecord): Promise<Uint8Array> {
    const bytes = await this.blobs.get(record.blobKey);
    if (!bytes)
      throw new AppError('internal', `The bytes of document ${record.id} are missing from blob storage`);
    return bytes;
  }
}
