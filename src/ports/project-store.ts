import type { Paper } from '../domain/paper.js';
import type { ApiKeyRecord, DocumentRecord, Project, ProjectEntry, Tenant } from '../domain/project.js';

/**
 * Durable store of tenants, API keys, projects, the papers filed in them and their documents.
 * Every project/document method takes the tenant id, so one tenant cannot reach another's data by
 * construction. Timestamps are ISO-8601 strings. Adapters: SQLite (embedded), PostgreSQL (scale-out);
 * both pass `test/contract/project-store.contract.ts`.
 */
export interface ProjectStore {
  /** Creates the tenant if absent; returns it either way. */
  ensureTenant(id: string, name?: string): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | null>;

  /** Stores a new key by its hash. `keyHash` must be unique. */
  createApiKey(input: {
    id: string;
    tenantId: string;
    name: string;
    prefix: string;
    keyHash: string;
  }): Promise<ApiKeyRecord>;
  /** The key whose hash this is, revoked or not (callers check `revokedAt`), with its stored hash. */
  findApiKeyByHash(keyHash: string): Promise<(ApiKeyRecord & { keyHash: string }) | null>;
  /** All keys, or one tenant's, oldest first. */
  listApiKeys(tenantId?: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when no such (unrevoked) key exists. */
  revokeApiKey(id: string): Promise<boolean>;
  countActiveApiKeys(): Promise<number>;

  /** Creates a project; `conflict` AppError when the tenant already has one with that name. */
  createProject(tenantId: string, input: { id: string; name: string }): Promise<Project>;
  /** Finds a project of the tenant by id, else by name. */
  findProject(tenantId: string, idOrName: string): Promise<Project | null>;
  /** Returns the project with this id, creating it (name = id) when absent (the default `gpt`). */
  ensureProject(tenantId: string, id: string): Promise<Project>;
  listProjects(tenantId: string): Promise<Array<Project & { paperCount: number }>>;
  /** Deletes the project and its entries; false when absent. */
  deleteProject(tenantId: string, projectId: string): Promise<boolean>;

  /**
   * Files a paper in a project. Idempotent: when an entry of the project is the same paper by
   * `matchEntry` (same document, else a shared strong identifier, else the title key when neither
   * the documents nor an identifier of the same scheme differ), that entry is updated and returned
   * with `created: false`. An entry never loses its document: when it holds a different one than
   * `documentId`, it is returned unchanged (callers see `entry.documentId !== documentId`).
   */
  addEntry(
    tenantId: string,
    projectId: string,
    input: { entryId: string; paper: Paper; documentId: string | null; identityKeys: string[] },
  ): Promise<{ entry: ProjectEntry; created: boolean }>;
  /**
   * `addEntry` into the tenant's project `project.name` (found as `findProject` finds it), creating
   * that project as `project` when the tenant has none, in the same transaction as the entry: a crash
   * or a failed write leaves both or neither, never an empty project no request finished. Two
   * concurrent calls with the same new name file into one project.
   */
  addEntryCreatingProject(
    tenantId: string,
    project: { id: string; name: string },
    input: { entryId: string; paper: Paper; documentId: string | null; identityKeys: string[] },
  ): Promise<{ project: Project; entry: ProjectEntry; created: boolean }>;
  listEntries(tenantId: string, projectId: string): Promise<ProjectEntry[]>;
  getEntry(tenantId: string, projectId: string, entryId: string): Promise<ProjectEntry | null>;
  /** Removes one entry; false when absent. */
  removeEntry(tenantId: string, projectId: string, entryId: string): Promise<boolean>;

  /** Stores document metadata; idempotent on (tenant, sha256): returns the existing record. */
  putDocument(document: DocumentRecord): Promise<DocumentRecord>;
  getDocument(tenantId: string, documentId: string): Promise<DocumentRecord | null>;
  findDocumentBySha256(tenantId: string, sha256: string): Promise<DocumentRecord | null>;
  /**
   * Which of `blobKeys` a document row of any tenant references. Across tenants on purpose: a blob
   * is shared by every tenant that stored the same bytes. For maintenance (the sweep of blobs left
   * unreferenced by a crash), never for answering a tenant's request. Any number of keys.
   */
  referencedBlobKeys(blobKeys: readonly string[]): Promise<Set<string>>;

  /**
   * The stored value of the setting `name`, storing `proposed` first when there is none. Race-safe:
   * of concurrent calls (replicas starting at once on one database) exactly one value is stored and
   * every call returns it. A stored value is never replaced. For values that every replica must
   * share, such as the figure-link signing secret.
   */
  ensureSetting(name: string, proposed: string): Promise<string>;

  /** Throws when the store cannot answer (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
