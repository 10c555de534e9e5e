import type { Kysely } from 'kysely';
import { AppError } from '../../domain/errors.js';
import type { DocumentRecord } from '../../domain/project.js';
import type { Removal, TenantStorage } from '../../ports/project-store.js';
import type { ProjectDatabase } from './schema.js';

/**
 * Serialises, inside a transaction, every writer of document rows and release marks for one
 * content hash until that transaction ends. PostgreSQL needs it (two transactions at READ
 * COMMITTED would each miss the other's uncommitted row); SQLite runs one write transaction at a
 * time anyway, so it passes none.
 */
export type ContentLock = (trx: Kysely<ProjectDatabase>, sha256: string) => Promise<void>;

/** Keys per `in (…)` list: far below SQLite's and PostgreSQL's bound-parameter limits. */
export const keysPerQuery = 500;

const now = () => new Date().toISOString();

/** A tenant's document row, its content hash locked for the rest of the transaction. */
export interface LockedDocument {
  id: string;
  sha256: string;
}

export function toDocument(row: ProjectDatabase['documents']): DocumentRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    sha256: row.sha256,
    blobKey: row.blob_key,
    byteSize: Number(row.byte_size),
    contentType: row.content_type,
    filename: row.filename,
    sourceUrl: row.source_url,
    createdAt: row.created_at,
  };
}

/**
 * The document rows and content-release marks of the Kysely project store (decision 0041): the
 * half of `ProjectStore` that decides when a document's content may be freed. Every method that
 * writes rows of one content hash takes its lock first.
 */
export class KyselyDocumentRows {
  constructor(
    private readonly db: Kysely<ProjectDatabase>,
    private readonly lock: ContentLock,
  ) {}

  /**
   * Locks (inside the caller's transaction) the content hashes of the tenant's documents
   * `documentIds`, in one order, and returns them. A removal takes these locks before it touches
   * any entry: an add of the same document holds its lock while it writes its entry (which waits on
   * the rows the removal changes), so taking them later could deadlock the two.
   */
  async lockDocuments(
    trx: Kysely<ProjectDatabase>,
    tenantId: string,
    documentIds: readonly string[],
  ): Promise<LockedDocument[]> {
    const documents: LockedDocument[] = [];
    for (let start = 0; start < documentIds.length; start += keysPerQuery) {
      documents.push(
        ...(await trx
          .selectFrom('documents')
          .select(['id', 'sha256'])
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', documentIds.slice(start, start + keysPerQuery))
          .execute()),
      );
    }
    // One order, so two removals sharing documents cannot wait on each other.
    documents.sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
    for (const document of documents) await this.lock(trx, document.sha256);
    return documents;
  }

  /**
   * Deletes those of the tenant's `documents` (locked by `lockDocuments` in this transaction) that
   * no entry of the tenant holds any more, after the caller changed its entries; returns their
   * content hashes. An add filing the same document at this moment either came first (and keeps
   * it) or writes the row again after us.
   */
  async dropUnheld(
    trx: Kysely<ProjectDatabase>,
    tenantId: string,
    documents: readonly LockedDocument[],
  ): Promise<string[]> {
    const orphaned: string[] = [];
    for (const document of documents) {
      const holder = await trx
        .selectFrom('project_entries')
        .select('entry_id')
        .where('tenant_id', '=', tenantId)
        .where('document_id', '=', document.id)
        .limit(1)
        .executeTakeFirst();
      if (holder) continue;
      await trx
        .deleteFrom('documents')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', document.id)
        .execute();
      orphaned.push(document.sha256);
    }
    return orphaned;
  }

  async deleteDocument(
    tenantId: string,
    documentId: string,
  ): Promise<(Removal & { detachedEntries: number }) | null> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('documents')
        .select('sha256')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', documentId)
        .executeTakeFirst();
      if (!row) return null;
      await this.lock(trx, row.sha256);
      const detached = await trx
        .updateTable('project_entries')
        .set({ document_id: null })
        .where('tenant_id', '=', tenantId)
        .where('document_id', '=', documentId)
        .executeTakeFirst();
      const deleted = await trx
        .deleteFrom('documents')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', documentId)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return null;
      return { orphanedContent: [row.sha256], detachedEntries: Number(detached.numUpdatedRows) };
    });
  }

  async deleteUnfiledDocuments(createdBefore: string, limit: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const unfiled = await trx
        .selectFrom('documents as d')
        .select(['d.tenant_id', 'd.id', 'd.sha256'])
        .where('d.created_at', '<', createdBefore)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('project_entries as e')
                .select('e.entry_id')
                .whereRef('e.tenant_id', '=', 'd.tenant_id')
                .whereRef('e.document_id', '=', 'd.id'),
            ),
          ),
        )
        .orderBy('d.sha256')
        .limit(limit)
        .execute();
      const deleted: string[] = [];
      for (const row of unfiled) {
        // Checked again under the hash's lock: an add may have filed it since the query above.
        const locked = await this.lockDocuments(trx, row.tenant_id, [row.id]);
        deleted.push(...(await this.dropUnheld(trx, row.tenant_id, locked)));
      }
      return deleted;
    });
  }

  async storedContent(sha256s: readonly string[]): Promise<Set<string>> {
    const stored = new Set<string>();
    for (let start = 0; start < sha256s.length; start += keysPerQuery) {
      const rows = await this.db
        .selectFrom('documents')
        .select('sha256')
        .distinct()
        .where('sha256', 'in', sha256s.slice(start, start + keysPerQuery))
        .execute();
      for (const row of rows) stored.add(row.sha256);
    }
    return stored;
  }

  async claimContentRelease(sha256: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.lock(trx, sha256);
      const stored = await trx
        .selectFrom('documents')
        .select('id')
        .where('sha256', '=', sha256)
        .limit(1)
        .executeTakeFirst();
      if (stored) return false;
      const startedAt = now();
      await trx
        .insertInto('content_releases')
        .values({ sha256, started_at: startedAt, ended_at: null })
        .onConflict((conflict) =>
          conflict.column('sha256').doUpdateSet({ started_at: startedAt, ended_at: null }),
        )
        .execute();
      return true;
    });
  }

  async endContentRelease(sha256: string): Promise<void> {
    await this.db
      .updateTable('content_releases')
      .set({ ended_at: now() })
      .where('sha256', '=', sha256)
      .where('ended_at', 'is', null)
      .execute();
  }

  async contentReleasePending(sha256: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('content_releases')
      .select('sha256')
      .where('sha256', '=', sha256)
      .where('ended_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async contentReleasesStartedBefore(startedBefore: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('content_releases')
      .select('sha256')
      .where('started_at', '<', startedBefore)
      .where('ended_at', 'is', null)
      .orderBy('sha256')
      .execute();
    return rows.map((row) => row.sha256);
  }

  async releasedContent(sha256s: readonly string[]): Promise<Set<string>> {
    const released = new Set<string>();
    for (let start = 0; start < sha256s.length; start += keysPerQuery) {
      const rows = await this.db
        .selectFrom('content_releases')
        .select('sha256')
        .where('sha256', 'in', sha256s.slice(start, start + keysPerQuery))
        .execute();
      for (const row of rows) released.add(row.sha256);
    }
    return released;
  }

  async forgetContentReleases(endedBefore: string): Promise<number> {
    const result = await this.db
      .deleteFrom('content_releases')
      .where('ended_at', '<', endedBefore)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async storageByTenant(): Promise<TenantStorage[]> {
    const rows = await this.db
      .selectFrom('documents')
      .select('tenant_id')
      .select((eb) => [eb.fn.countAll().as('documents'), eb.fn.sum('byte_size').as('bytes')])
      .groupBy('tenant_id')
      .orderBy('tenant_id')
      .execute();
    return rows.map((row) => ({
      tenantId: row.tenant_id,
      documents: Number(row.documents),
      bytes: Number(row.bytes ?? 0),
    }));
  }

  /** Inserts a document row unless the tenant has one for its hash (in `db`, a transaction or not). */
  async insert(db: Kysely<ProjectDatabase>, document: DocumentRecord): Promise<void> {
    await db
      .insertInto('documents')
      .values({
        tenant_id: document.tenantId,
        id: document.id,
        sha256: document.sha256,
        blob_key: document.blobKey,
        byte_size: document.byteSize,
        content_type: document.contentType,
        filename: document.filename,
        source_url: document.sourceUrl,
        created_at: document.createdAt,
      })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  /** The tenant's row for content `sha256` (in `db`, a transaction or not). */
  async bySha256(
    db: Kysely<ProjectDatabase>,
    tenantId: string,
    sha256: string,
  ): Promise<DocumentRecord | null> {
    const row = await db
      .selectFrom('documents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('sha256', '=', sha256)
      .executeTakeFirst();
    return row ? toDocument(row) : null;
  }

  async putDocument(document: DocumentRecord): Promise<DocumentRecord> {
    await this.insert(this.db, document);
    const stored = await this.bySha256(this.db, document.tenantId, document.sha256);
    if (!stored) throw new AppError('internal', 'Document vanished after insert');
    return stored;
  }

  async getDocument(tenantId: string, documentId: string): Promise<DocumentRecord | null> {
    const row = await this.db
      .selectFrom('documents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', documentId)
      .executeTakeFirst();
    return row ? toDocument(row) : null;
  }

  findDocumentBySha256(tenantId: string, sha256: string): Promise<DocumentRecord | null> {
    return this.bySha256(this.db, tenantId, sha256);
  }
}
