import { type Kysely, sql } from 'kysely';
import { entryMatchRank, matchEntry } from '../../domain/entry-identity.js';
import { AppError } from '../../domain/errors.js';
import { type Paper, paperSchema } from '../../domain/paper.js';
import { unitePapers } from '../../domain/paper-union.js';
import type { ApiKeyRecord, DocumentRecord, Project, ProjectEntry, Tenant } from '../../domain/project.js';
import type { EntryInput, ProjectStore, Removal, TenantStorage } from '../../ports/project-store.js';
import { type ContentLock, KyselyDocumentRows } from './kysely-document-rows.js';
import type { ProjectDatabase } from './schema.js';

type Row<T extends keyof ProjectDatabase> = ProjectDatabase[T];

const now = () => new Date().toISOString();

function toApiKey(row: Row<'api_keys'>): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function toProject(row: Row<'projects'>): Project {
  return { id: row.id, tenantId: row.tenant_id, name: row.name, createdAt: row.created_at };
}

function parseStoredPaper(json: string): Paper {
  // Stored by us, but validated anyway: a record from an older release must not crash a listing.
  const parsed = paperSchema.safeParse(JSON.parse(json));
  if (!parsed.success) throw new AppError('internal', 'A stored paper record is unreadable');
  return parsed.data;
}

/**
 * The project store on Kysely: one query code base for SQLite and PostgreSQL. Adapters construct it
 * with their dialect's Kysely instance after running `migrateProjectStore`.
 */
export class KyselyProjectStore implements ProjectStore {
  private readonly documents: KyselyDocumentRows;

  constructor(
    private readonly db: Kysely<ProjectDatabase>,
    private readonly onClose: () => Promise<void>,
    private readonly lockContent: ContentLock = async () => {},
  ) {
    this.documents = new KyselyDocumentRows(db, lockContent);
  }

  async ensureTenant(id: string, name = id): Promise<Tenant> {
    await this.db
      .insertInto('tenants')
      .values({ id, name, created_at: now() })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
    const tenant = await this.getTenant(id);
    if (!tenant) throw new AppError('internal', `Tenant ${id} vanished after insert`);
    return tenant;
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const row = await this.db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
  }

  async createApiKey(input: {
    id: string;
    tenantId: string;
    name: string;
    prefix: string;
    keyHash: string;
  }): Promise<ApiKeyRecord> {
    const row = {
      id: input.id,
      tenant_id: input.tenantId,
      name: input.name,
      prefix: input.prefix,
      key_hash: input.keyHash,
      created_at: now(),
      revoked_at: null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    return toApiKey(row);
  }

  async findApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { keyHash: string }) | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row ? { ...toApiKey(row), keyHash: row.key_hash } : null;
  }

  async listApiKeys(tenantId?: string): Promise<ApiKeyRecord[]> {
    let query = this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    return (await query.execute()).map(toApiKey);
  }

  async revokeApiKey(id: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async countActiveApiKeys(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async createProject(tenantId: string, input: { id: string; name: string }): Promise<Project> {
    const existing = await this.findProject(tenantId, input.name);
    if (existing && existing.name === input.name) {
      throw new AppError('conflict', `Project "${input.name}" already exists`, {
        param: 'project_name',
      });
    }
    const row = { tenant_id: tenantId, id: input.id, name: input.name, created_at: now() };
    try {
      await this.db.insertInto('projects').values(row).execute();
    } catch (error) {
      // A concurrent create with the same name hits the unique constraint.
      throw new AppError('conflict', `Project "${input.name}" already exists`, {
        param: 'project_name',
        cause: error,
      });
    }
    return toProject(row);
  }

  findProject(tenantId: string, idOrName: string): Promise<Project | null> {
    return this.projectByIdOrName(this.db, tenantId, idOrName);
  }

  private async projectByIdOrName(
    db: Kysely<ProjectDatabase>,
    tenantId: string,
    idOrName: string,
  ): Promise<Project | null> {
    const rows = await db
      .selectFrom('projects')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
      .execute();
    // An id match wins over a name match.
    const row = rows.find((candidate) => candidate.id === idOrName) ?? rows[0];
    return row ? toProject(row) : null;
  }

  async ensureProject(tenantId: string, id: string): Promise<Project> {
    await this.db
      .insertInto('projects')
      .values({ tenant_id: tenantId, id, name: id, created_at: now() })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
    const project = await this.findProject(tenantId, id);
    if (!project) throw new AppError('internal', `Project ${id} vanished after insert`);
    return project;
  }

  async listProjects(tenantId: string): Promise<Array<Project & { paperCount: number }>> {
    const rows = await this.db
      .selectFrom('projects as p')
      .leftJoin('project_entries as e', (join) =>
        join.onRef('e.tenant_id', '=', 'p.tenant_id').onRef('e.project_id', '=', 'p.id'),
      )
      .select(['p.tenant_id', 'p.id', 'p.name', 'p.created_at'])
      .select((eb) => eb.fn.count('e.entry_id').as('paper_count'))
      .where('p.tenant_id', '=', tenantId)
      .groupBy(['p.tenant_id', 'p.id', 'p.name', 'p.created_at'])
      .orderBy('p.created_at')
      .orderBy('p.id')
      .execute();
    return rows.map((row) => ({ ...toProject(row), paperCount: Number(row.paper_count) }));
  }

  async deleteProject(tenantId: string, projectId: string): Promise<Removal | null> {
    return this.db.transaction().execute(async (trx) => {
      const held = await trx
        .selectFrom('project_entries')
        .select('document_id')
        .distinct()
        .where('tenant_id', '=', tenantId)
        .where('project_id', '=', projectId)
        .where('document_id', 'is not', null)
        .execute();
      const documentIds = held.flatMap((row) => (row.document_id === null ? [] : [row.document_id]));
      // Locked before any row changes (see `lockDocuments`).
      const documents = await this.documents.lockDocuments(trx, tenantId, documentIds);
      // Entries and their identity keys go with the project (foreign keys, on delete cascade).
      const result = await trx
        .deleteFrom('projects')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', projectId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return null;
      return { orphanedContent: await this.documents.dropUnheld(trx, tenantId, documents) };
    });
  }

  addEntry(
    tenantId: string,
    projectId: string,
    input: EntryInput,
  ): Promise<{ entry: ProjectEntry; created: boolean }> {
    return this.db.transaction().execute((trx) => this.fileEntry(trx, tenantId, projectId, input));
  }

  addEntries(
    tenantId: string,
    projectId: string,
    inputs: readonly EntryInput[],
  ): Promise<Array<{ entry: ProjectEntry; created: boolean }>> {
    return this.db.transaction().execute(async (trx) => {
      const filed: Array<{ entry: ProjectEntry; created: boolean }> = [];
      // In order, not concurrently: a later entry may match (and update) an earlier one.
      for (const input of inputs) filed.push(await this.fileEntry(trx, tenantId, projectId, input));
      return filed;
    });
  }

  async addEntryCreatingProject(
    tenantId: string,
    project: { id: string; name: string },
    input: EntryInput,
  ): Promise<{ project: Project; entry: ProjectEntry; created: boolean }> {
    for (let attempt = 1; ; attempt += 1) {
      let inserting = false;
      try {
        return await this.db.transaction().execute(async (trx) => {
          let filedIn = await this.projectByIdOrName(trx, tenantId, project.name);
          if (!filedIn) {
            inserting = true;
            const row = { tenant_id: tenantId, id: project.id, name: project.name, created_at: now() };
            await trx.insertInto('projects').values(row).execute();
            filedIn = toProject(row);
          }
          return { project: filedIn, ...(await this.fileEntry(trx, tenantId, filedIn.id, input)) };
        });
      } catch (error) {
        // A concurrent call created the project first (its name is unique): file into that one.
        const raced = inserting && attempt === 1 && (await this.findProject(tenantId, project.name)) !== null;
        if (!raced) throw error;
      }
    }
  }

  /** The body of `addEntry`, inside the caller's transaction. */
  private async fileEntry(
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
    const entry = await this.readEntry(trx, tenantId, projectId, entryId);
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
      const entry = await this.readEntry(db, tenantId, projectId, entryId);
      const match = entry ? matchEntry(entry, input) : null;
      if (!entry || !match) continue;
      const rank = entryMatchRank[match];
      // The strongest match wins; among equals, the entry filed first.
      const better = !best || rank < best.rank || (rank === best.rank && entry.addedAt < best.entry.addedAt);
      if (better) best = { entry, rank };
    }
    return best?.entry ?? null;
  }

  private async readEntry(
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

  async listEntries(tenantId: string, projectId: string): Promise<ProjectEntry[]> {
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

  getEntry(tenantId: string, projectId: string, entryId: string): Promise<ProjectEntry | null> {
    return this.readEntry(this.db, tenantId, projectId, entryId);
  }

  async removeEntry(tenantId: string, projectId: string, entryId: string): Promise<Removal | null> {
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

  putDocument(document: DocumentRecord): Promise<DocumentRecord> {
    return this.documents.putDocument(document);
  }

  getDocument(tenantId: string, documentId: string): Promise<DocumentRecord | null> {
    return this.documents.getDocument(tenantId, documentId);
  }

  findDocumentBySha256(tenantId: string, sha256: string): Promise<DocumentRecord | null> {
    return this.documents.findDocumentBySha256(tenantId, sha256);
  }

  deleteDocument(tenantId: string, documentId: string) {
    return this.documents.deleteDocument(tenantId, documentId);
  }

  deleteUnfiledDocuments(createdBefore: string, limit: number): Promise<string[]> {
    return this.documents.deleteUnfiledDocuments(createdBefore, limit);
  }

  storedContent(sha256s: readonly string[]): Promise<Set<string>> {
    return this.documents.storedContent(sha256s);
  }

  claimContentRelease(sha256: string): Promise<boolean> {
    return this.documents.claimContentRelease(sha256);
  }

  endContentRelease(sha256: string): Promise<void> {
    return this.documents.endContentRelease(sha256);
  }

  contentReleasePending(sha256: string): Promise<boolean> {
    return this.documents.contentReleasePending(sha256);
  }

  contentReleasesStartedBefore(startedBefore: string): Promise<string[]> {
    return this.documents.contentReleasesStartedBefore(startedBefore);
  }

  releasedContent(sha256s: readonly string[]): Promise<Set<string>> {
    return this.documents.releasedContent(sha256s);
  }

  forgetContentReleases(endedBefore: string): Promise<number> {
    return this.documents.forgetContentReleases(endedBefore);
  }

  storageByTenant(): Promise<TenantStorage[]> {
    return this.documents.storageByTenant();
  }

  async ensureSetting(name: string, proposed: string): Promise<string> {
    // Insert-if-absent, then read: of two replicas starting at once, the loser's insert does
    // nothing and both read the winner's value.
    await this.db
      .insertInto('settings')
      .values({ name, value: proposed, created_at: now() })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst();
    if (!row) throw new AppError('internal', `Setting ${name} vanished after insert`);
    return row.value;
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
