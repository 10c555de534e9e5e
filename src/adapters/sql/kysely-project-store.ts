import { type Kysely, sql } from 'kysely';
import { AppError } from '../../domain/errors.js';
import type { ApiKeyRecord, DocumentRecord, Project, ProjectEntry, Tenant } from '../../domain/project.js';
import type { EntryInput, ProjectStore, Removal, TenantStorage } from '../../ports/project-store.js';
import { type ContentLock, KyselyDocumentRows } from './kysely-document-rows.js';
import { KyselyEntryRows } from './kysely-entry-rows.js';
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

/**
 * The project store on Kysely: one query code base for SQLite and PostgreSQL. Adapters construct it
 * with their dialect's Kysely instance after running `migrateProjectStore`.
 */
export class KyselyProjectStore implements ProjectStore {
  private readonly documents: KyselyDocumentRows;
  private readonly entries: KyselyEntryRows;

  constructor(
    private readonly db: Kysely<ProjectDatabase>,
    private readonly onClose: () => Promise<void>,
    lockContent: ContentLock = async () => {},
  ) {
    this.documents = new KyselyDocumentRows(db, lockContent);
    this.entries = new KyselyEntryRows(db, this.documents, lockContent);
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
    return this.db.transaction().execute((trx) => this.entries.file(trx, tenantId, projectId, input));
  }

  addEntries(
    tenantId: string,
    projectId: string,
    inputs: readonly EntryInput[],
  ): Promise<Array<{ entry: ProjectEntry; created: boolean }>> {
    return this.db.transaction().execute(async (trx) => {
      const filed: Array<{ entry: ProjectEntry; created: boolean }> = [];
      // In order, not concurrently: a later entry may match (and update) an earlier one.
      for (const input of inputs) filed.push(await this.entries.file(trx, tenantId, projectId, input));
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
          return { project: filedIn, ...(await this.entries.file(trx, tenantId, filedIn.id, input)) };
        });
      } catch (error) {
        // A concurrent call created the project first (its name is unique): file into that one.
        const raced = inserting && attempt === 1 && (await this.findProject(tenantId, project.name)) !== null;
        if (!raced) throw error;
      }
    }
  }

  listEntries(tenantId: string, projectId: string): Promise<ProjectEntry[]> {
    return this.entries.list(tenantId, projectId);
  }

  getEntry(tenantId: string, projectId: string, entryId: string): Promise<ProjectEntry | null> {
    return this.entries.read(this.db, tenantId, projectId, entryId);
  }

  removeEntry(tenantId: string, projectId: string, entryId: string): Promise<Removal | null> {
    return this.entries.remove(tenantId, projectId, entryId);
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
