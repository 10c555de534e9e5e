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
   * Files a paper in a project. Idempotent: when an entry of the project shares an identity key
   * (strong identifiers first; the title key only when neither side has a strong one) or the same
   * document, that entry is updated and returned with `created: false`.
   */
  addEntry(
    tenantId: string,
    projectId: string,
    input: { entryId: string; paper: Paper; documentId: string | null; identityKeys: string[] },
  ): Promise<{ entry: ProjectEntry; created: boolean }>;
  listEntries(tenantId: string, projectId: string): Promise<ProjectEntry[]>;
  getEntry(tenantId: string, projectId: string, entryId: string): Promise<ProjectEntry | null>;
  /** Removes one entry; false when absent. */
  removeEntry(tenantId: string, projectId: string, entryId: string): Promise<boolean>;

  /** Stores document metadata; idempotent on (tenant, sha256): returns the existing record. */
  putDocument(document: DocumentRecord): Promise<DocumentRecord>;
  getDocument(tenantId: string, documentId: string): Promise<DocumentRecord | null>;
  findDocumentBySha256(tenantId: string, sha256: string): Promise<DocumentRecord | null>;

  /** Throws when the store cannot answer (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
