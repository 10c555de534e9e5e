import type { Paper } from '../domain/paper.js';
import type { ApiKeyRecord, DocumentRecord, Project, ProjectEntry, Tenant } from '../domain/project.js';

/** A paper to file: the entry, and its stored document (written with it) when it has a PDF. */
export interface EntryInput {
  entryId: string;
  paper: Paper;
  /**
   * The tenant's stored PDF for this paper, or null. Its row is written in the entry's transaction
   * (idempotent on tenant and content hash), so a document row exists exactly while an entry holds
   * it; when the entry keeps another document (see `addEntry`) no row is written.
   */
  document: DocumentRecord | null;
  identityKeys: string[];
}

/** What a removal took with it. */
export interface Removal {
  /**
   * Content hashes (sha256) of the tenant's document rows deleted with it, because no entry of
   * the tenant holds them any more. Their blobs may be freed once no tenant stores the same
   * content: see `claimContentRelease`.
   */
  orphanedContent: string[];
}

/** One tenant's stored PDFs. */
export interface TenantStorage {
  tenantId: string;
  documents: number;
  /** Sum of the PDFs' sizes (content shared with other tenants is counted for each). */
  bytes: number;
}

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
  /**
   * Deletes the project and its entries, and the tenant's documents no other entry holds, in one
   * transaction; null when absent.
   */
  deleteProject(tenantId: string, projectId: string): Promise<Removal | null>;

  /**
   * Files a paper in a project. Idempotent: when an entry of the project is the same paper by
   * `matchEntry` (same document, else a shared strong identifier, else the title key when neither
   * the documents nor an identifier of the same scheme differ), that entry is updated and returned
   * with `created: false`. An entry never loses its document: when it holds a different one than
   * `input.document`, it is returned unchanged (callers see `entry.documentId !== document.id`).
   */
  addEntry(
    tenantId: string,
    projectId: string,
    input: EntryInput,
  ): Promise<{ entry: ProjectEntry; created: boolean }>;
  /**
   * Files several papers in a project as `addEntry` files each, in order, in one transaction: all
   * are filed or, when one fails (or the process dies), none is visible. For imports (0049).
   */
  addEntries(
    tenantId: string,
    projectId: string,
    inputs: readonly EntryInput[],
  ): Promise<Array<{ entry: ProjectEntry; created: boolean }>>;
  /**
   * `addEntry` into the tenant's project `project.name` (found as `findProject` finds it), creating
   * that project as `project` when the tenant has none, in the same transaction as the entry: a crash
   * or a failed write leaves both or neither, never an empty project no request finished. Two
   * concurrent calls with the same new name file into one project.
   */
  addEntryCreatingProject(
    tenantId: string,
    project: { id: string; name: string },
    input: EntryInput,
  ): Promise<{ project: Project; entry: ProjectEntry; created: boolean }>;
  listEntries(tenantId: string, projectId: string): Promise<ProjectEntry[]>;
  getEntry(tenantId: string, projectId: string, entryId: string): Promise<ProjectEntry | null>;
  /**
   * Removes one entry, and its document when no other entry of the tenant holds it, in one
   * transaction; null when absent.
   */
  removeEntry(tenantId: string, projectId: string, entryId: string): Promise<Removal | null>;

  /**
   * Stores document metadata; idempotent on (tenant, sha256): returns the existing record. A row no
   * entry holds is deleted by the sweep once older than its grace period (`deleteUnfiledDocuments`);
   * adds write their row with the entry instead (`EntryInput.document`).
   */
  putDocument(document: DocumentRecord): Promise<DocumentRecord>;
  getDocument(tenantId: string, documentId: string): Promise<DocumentRecord | null>;
  findDocumentBySha256(tenantId: string, sha256: string): Promise<DocumentRecord | null>;
  /**
   * Deletes one of the tenant's documents: the entries that held it stay in their projects without
   * a PDF (metadata only), in the same transaction. Null when absent.
   */
  deleteDocument(
    tenantId: string,
    documentId: string,
  ): Promise<(Removal & { detachedEntries: number }) | null>;
  /**
   * Deletes up to `limit` document rows that no entry holds and that were created before
   * `createdBefore` (ISO-8601), across tenants; returns their content hashes. Left by older
   * releases (which kept a PDF after its last entry went) and by `putDocument`. For the sweep.
   */
  deleteUnfiledDocuments(createdBefore: string, limit: number): Promise<string[]>;
  /**
   * Which of these content hashes a document row of any tenant has. Across tenants on purpose:
   * blobs are shared by every tenant that stored the same bytes. For maintenance (releases and the
   * sweep), never for answering a tenant's request. Any number of hashes.
   */
  storedContent(sha256s: readonly string[]): Promise<Set<string>>;

  /**
   * Starts the release of content `sha256` — deleting its blobs — when no document row of any
   * tenant has it: writes a release mark and answers true; false (nothing written) when a row has
   * it. Serialised with the writes of document rows for the same hash (`addEntry`), so either the
   * add's row comes first and the claim fails, or the claim comes first and the add sees the mark
   * (`contentReleasePending`), waits for it to end and then puts its bytes back.
   */
  claimContentRelease(sha256: string): Promise<boolean>;
  /**
   * Ends the release of `sha256` (its blobs are gone): adds stop waiting for it. The ended mark is
   * kept until `forgetContentReleases`, so the sweep can tell a blob written to released content
   * afterwards (by a drawing or an embedding that was still running) from a cache.
   */
  endContentRelease(sha256: string): Promise<void>;
  /** True while a release of `sha256` is marked and not ended. */
  contentReleasePending(sha256: string): Promise<boolean>;
  /** Hashes whose release was started before `startedBefore` (ISO-8601) and never ended: cut short by a kill. */
  contentReleasesStartedBefore(startedBefore: string): Promise<string[]>;
  /** Which of these hashes have a release mark, ended or not. Any number of hashes. */
  releasedContent(sha256s: readonly string[]): Promise<Set<string>>;
  /** Deletes the marks of releases ended before `endedBefore` (ISO-8601); returns how many. */
  forgetContentReleases(endedBefore: string): Promise<number>;

  /** Each tenant's stored PDFs: count and bytes (one grouped query; for metrics, not per request). */
  storageByTenant(): Promise<TenantStorage[]>;

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
