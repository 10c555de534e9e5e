import type { Paper } from './paper.js';

/** The project every tenant has without creating it (spec 2.4). */
export const defaultProjectId = 'gpt';

export interface Tenant {
  id: string;
  name: string;
  createdAt: string;
}

/** A tenant's collection of papers. `id` is unique within the tenant only. */
export interface Project {
  id: string;
  tenantId: string;
  name: string;
  createdAt: string;
}

/** A paper filed in a project, with the stored document (PDF) when there is one. */
export interface ProjectEntry {
  entryId: string;
  projectId: string;
  paper: Paper;
  documentId: string | null;
  /** identityKeys() of the paper at the time it was added; used for idempotent adds. */
  identityKeys: string[];
  addedAt: string;
}

/** A stored document (the bytes live in the BlobStore under `blobKey`). */
export interface DocumentRecord {
  id: string;
  tenantId: string;
  sha256: string;
  blobKey: string;
  byteSize: number;
  contentType: string;
  filename: string | null;
  sourceUrl: string | null;
  createdAt: string;
}

/** Metadata of an API key; the key itself is never stored, only its hash. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  /** First characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}
