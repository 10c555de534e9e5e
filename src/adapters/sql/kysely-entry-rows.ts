// The project-entry rows of the Kysely project store: filing a paper (matched to an entry), reading it.
import type { Kysely } from 'kysely';
import { entryMatchRank, matchEntry } from '../../domain/entry-identity.js';
import { AppError } from '../../domain/errors.js';
import { type Paper, paperSchema } from '../../domain/paper.js';
import { unitePapers } from '../../domain/paper-union.js';
import type { ProjectEntry } from '../../domain/project.js';
import type { EntryInput, Removal } from '../../ports/project-store.js';
import type { ContentLock, KyselyDocumentRows } from './kysely-document-rows.js';
import type { ProjectDatabase } from './schema.js';

const now = () => new Date().toISOString();

function parseStoredPaper(json: string): Paper {
  // Stored by us, but validated anyway: a record from an older release must not crash a listing.
  const parsed = paperSchema.safeParse(JSON.parse(json));
  if (!parsed.success) throw new AppError('internal', 'A stored paper record is unreadable');
  return parsed.data;
}

/**
 * The entries of the Kysely project store's projects and their identity keys: the half of
 * `ProjectStore` that decides whether an arriving record is a paper the project already holds.
 */
export class KyselyEntryRows {
  constructor(
    private readonly db: Kysely<ProjectDatabase>,
    private readonly documents: KyselyDocumentRows,
    private readonly lockContent: ContentLock,
  ) {}

  /**
   * Files `input` in a project, inside the caller's transaction: a new entry, or an update of the
   * entry that is the same paper (the body of `ProjectStore.addEntry`).
   */
  async file(
    trx: Kysely<ProjectDatabase>,
    tenantId: string,
    projectId: string,
    input: EntryInput,
  ): Promise<{ entry: ProjectEntry; created: boolean }> {
    const document = input.document;
    let documentId: string | null = null;
    if (document) {
      // Before anything else: a release of this content is either done (its mark is visible) or
      // waits for us (and then sees our row). The tenant's row, if any, keeps its id.
      await this.lockContent(trx, document.sha256);
      const stored = await this.documents.bySha256(trx, tenantId, document.sha256);
      documentId = stored?.id ?? document.id;
    }
    const existing = await this.sameEntry(trx, tenantId, projectId, {
      documentId,
      identityKeys: input.identityKeys,
    });
    if (existing?.documentId && documentId !== null && existing.documentId !== documentId) {
      // The same paper with another PDF: the entry keeps the PDF its pdf_id names, unchanged (0014),
      // and this PDF gets no row (nothing would hold it).
      return { entry: existing, created: false };
    }
    if (document && documentId === document.id) await this.documents.insert(trx, document);
    let entryId = input.entryId;
    if (existing) {
      entryId = existing.entryId;
      await trx
        .updateTable('project_entries')
        .set({
          // The arriving record updates the entry, and the entry keeps what it lacks: a pasted
          // one-line reference filed over an imported BibTeX entry must not drop its DOI,
          // abstract or third author (0049).
          paper_json: JSON.stringify(unitePapers(input.paper, existing.paper)),
          document_id: existing.documentId ?? documentId,
        })
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('entry_id', '=', entryId)
        .execute();
    } else {
      const position = await trx
        .selectFrom('project_entries')
        .select((eb) => eb.fn.max('position').as('max'))
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      await trx
        .insertInto('project_entries')
        .values({
          tenant_id: tenantId,
          project_id: projectId,
          entry_id: entryId,
          paper_json: JSON.stringify(input.paper),
          document_id: documentId,
          added_at: now(),
          position: Number(position?.max ?? 0) + 1,
        })
        .execute();
    }
    if (input.identityKeys.length > 0) {
      // A key already owned by another entry stays with it (one entry per key and project).
      await trx
        .insertInto('project_entry_keys')
        .values(
          input.identityKeys.map((identityKey) => ({
            tenant_id: tenantId,
            project_id: projectId,
            entry_id: entryId,
            identity_key: identityKey,
          })),
        )
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
    const entry = await this.read(trx, tenantId, projectId, entryId);
    if (!entry) throw new AppError('internal', 'Project entry vanished after write');
    return { entry, created: existing === null };
  }

  /**
   * The entry of the project that is the same paper as `input` by `matchEntry` (same document, then
   * a strong identifier, then title), or null. Only entries sharing a key or the document are read.
   */
  private async sameEntry(
    db: Kysely<ProjectDatabase>,
    tenantId: string,
    projectId: string,
    input: { documentId: string | null; identityKeys: string[] },
  ): Promise<ProjectEntry | null> {
    const candidateIds = new Set<string>();
    if (input.identityKeys.length > 0) {
      const byKey = await db
        .selectFrom('project_entry_keys')
        .select('entry_id')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('identity_key', 'in', input.identityKeys)
        .execute();
      for (const row of byKey) candidateIds.add(row.entry_id);
    }
    if (input.documentId !== null) {
      const byDocument = await db
        .selectFrom('project_entries')
        .select('entry_id')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('document_id', '=', input.documentId)
        .execute();
      for (const row of byDocument) candidateIds.add(row.entry_id);
    }
    let best: { entry: ProjectEntry; rank: number } | null = null;
    for (const entryId of candidateIds) {
      const entry = await this.read(db, tenantId, projectId, entryId);
      const match = entry ? matchEntry(entry, input) : null;
      if (!entry || !match) continue;
      const rank = entryMatchRank[match];
      // The strongest match wins; among equals, the entry filed first.
      const better = !best || rank < best.rank || (rank === best.rank && entry.addedAt < best.entry.addedAt);
      if (better) best = { entry, rank };
    }
    return best?.entry ?? null;
  }

  /** One entry with its identity keys, or null. */
  async read(
    db: Kysely<ProjectDatabase>,
    tenantId: string,
    projectId: string,
    entryId: string,
  ): Promise<ProjectEntry | null> {
    const row = await db
      .selectFrom('project_entries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('entry_id', '=', entryId)
      .executeTakeFirst();
    if (!row) return null;
    const keys = await db
      .selectFrom('project_entry_keys')
      .select('identity_key')
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .where('entry_id', '=', entryId)
      .execute();
    return {
      entryId: row.entry_id,
      projectId: row.project_id,
      paper: parseStoredPaper(row.paper_json),
      documentId: row.document_id,
      identityKeys: keys.map((key) => key.identity_key),
      addedAt: row.added_at,
    };
  }

  /** A project's entries in the order they were filed. */
  async list(tenantId: string, projectId: string): Promise<ProjectEntry[]> {
    const rows = await this.db
      .selectFrom('project_entries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .orderBy('position')
      .execute();
    const keys = await this.db
      .selectFrom('project_entry_keys')
      .select(['entry_id', 'identity_key'])
      .where('tenant_id', '=', tenantId)
      .where('project_id', '=', projectId)
      .execute();
    const keysByEntry = new Map<string, string[]>();
    for (const key of keys) {
      const list = keysByEntry.get(key.entry_id) ?? [];
      list.push(key.identity_key);
      keysByEntry.set(key.entry_id, list);
    }
    return rows.map((row) => ({
      entryId: row.entry_id,
      projectId: row.project_id,
      paper: parseStoredPaper(row.paper_json),
      documentId: row.document_id,
      identityKeys: keysByEntry.get(row.entry_id) ?? [],
      addedAt: row.added_at,
    }));
  }

  /** Removes one entry, and the documents no entry holds any more (0041), in one transaction. */
  remove(tenantId: string, projectId: string, entryId: string): Promise<Removal | null> {
    return this.db.transaction().execute(async (trx) => {
      const entry = await trx
        .selectFrom('project_entries')
        .select('document_id')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('entry_id', '=', entryId)
        .executeTakeFirst();
      if (!entry) return null;
      // Locked before any row changes (see `lockDocuments`).
      const held = entry.document_id === null ? [] : [entry.document_id];
      const documents = await this.documents.lockDocuments(trx, tenantId, held);
      await trx
        .deleteFrom('project_entry_keys')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('entry_id', '=', entryId)
        .execute();
      const result = await trx
        .deleteFrom('project_entries')
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('entry_id', '=', entryId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return null;
      return { orphanedContent: await this.documents.dropUnheld(trx, tenantId, documents) };
    });
  }
}
