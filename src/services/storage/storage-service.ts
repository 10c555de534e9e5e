import { formatDocumentRef, parseDocumentRef } from '../../domain/document-ref.js';
import { invalid, notFound } from '../../domain/errors.js';
import type { ProjectStore, TenantStorage } from '../../ports/project-store.js';
import type { BlobSweepReport } from './blob-sweep.js';
import type { ContentRelease } from './content-release.js';

/** A document id as `add_to_project` makes them: `doc_` and 24 hex digits of the content hash. */
const documentIdPattern = /^doc_[0-9a-f]{24}$/;

export interface StorageServiceOptions {
  store: Pick<ProjectStore, 'findProject' | 'listEntries' | 'deleteDocument' | 'storageByTenant'>;
  release: Pick<ContentRelease, 'release'>;
  /** The last finished sweep of this process, if it sweeps (for the blob-store figures). */
  lastSweep?: () => { report: BlobSweepReport; finishedAt: Date } | undefined;
  /** How long per-tenant figures are reused before the store is asked again, in ms (default 60 s). */
  usageTtlMs?: number;
}

/** What `DELETE /api/documents/…` did. */
export interface DeletedDocument {
  document_id: string;
  /** Project entries that held the PDF: they stay in their projects, without a PDF. */
  detached_entries: number;
}

/**
 * A tenant's stored PDFs as storage: deleting one (its blobs freed when no tenant stores the same
 * content, decision 0041), and the figures `/metrics` shows.
 */
export class StorageService {
  private usage: { at: number; value: Promise<TenantStorage[]> } | undefined;

  constructor(private readonly options: StorageServiceOptions) {}

  /**
   * Deletes one of the tenant's stored PDFs, named by its `pdf_id` (`PROJ:<project>/<document>`,
   * the document filed in that project of the tenant) or its document id (`doc_…`): the row goes,
   * the entries that held it stay as metadata-only records, and its blobs (PDF, parse, figures,
   * page images, passage vectors) are freed unless another tenant stores the same bytes. A 404
   * names `param` when the tenant has no such document, whether or not another tenant does.
   */
  async deleteDocument(tenantId: string, reference: string, param = 'pdf_id'): Promise<DeletedDocument> {
    const documentId = await this.documentIdOf(tenantId, reference.trim(), param);
    const removed = await this.options.store.deleteDocument(tenantId, documentId);
    if (!removed) throw notFound(`No stored document ${reference.trim()} among yours`, param);
    await this.options.release.release(removed.orphanedContent);
    return { document_id: documentId, detached_entries: removed.detachedEntries };
  }

  private async documentIdOf(tenantId: string, reference: string, param: string): Promise<string> {
    if (documentIdPattern.test(reference)) return reference;
    if (!/^PROJ:/i.test(reference)) {
      throw invalid(
        param,
        `${param} must be the pdf_id of a stored PDF (PROJ:<project>/<document>) or its document id (doc_ and 24 hex digits)`,
      );
    }
    const ref = parseDocumentRef(reference, param);
    if (ref.kind !== 'project') throw invalid(param, `${param} must be PROJ:<project>/<document>`);
    const missing = () => notFound(`No stored document ${formatDocumentRef(ref)} among yours`, param);
    const { store } = this.options;
    const project = await store.findProject(tenantId, ref.project);
    if (!project) throw missing();
    const entries = await store.listEntries(tenantId, project.id);
    if (!entries.some((entry) => entry.documentId === ref.documentId)) throw missing();
    return ref.documentId;
  }

  /**
   * Each tenant's stored PDFs (count and bytes), from one grouped query at most every
   * `usageTtlMs`: scrapes in between share the last answer.
   */
  tenantUsage(now = Date.now()): Promise<TenantStorage[]> {
    const ttl = this.options.usageTtlMs ?? 60_000;
    if (!this.usage || now - this.usage.at >= ttl) {
      const value = this.options.store.storageByTenant();
      this.usage = { at: now, value };
      // A failed query is not reused: the next scrape asks again.
      value.catch(() => {
        if (this.usage?.value === value) this.usage = undefined;
      });
    }
    return this.usage.value;
  }

  /** What the blob store holds per area, as this process's last sweep counted it. */
  blobAreas(): BlobSweepReport['areas'] | undefined {
    return this.options.lastSweep?.()?.report.areas;
  }
}
