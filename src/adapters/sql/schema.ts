import type { Generated } from 'kysely';

/** Table shapes of the project store, shared by the SQLite and PostgreSQL adapters. */
export interface ProjectDatabase {
  tenants: { id: string; name: string; created_at: string };
  api_keys: {
    id: string;
    tenant_id: string;
    name: string;
    prefix: string;
    key_hash: string;
    created_at: string;
    revoked_at: string | null;
  };
  projects: { tenant_id: string; id: string; name: string; created_at: string };
  documents: {
    tenant_id: string;
    id: string;
    sha256: string;
    blob_key: string;
    byte_size: number;
    content_type: string;
    filename: string | null;
    source_url: string | null;
    created_at: string;
  };
  project_entries: {
    tenant_id: string;
    project_id: string;
    entry_id: string;
    paper_json: string;
    document_id: string | null;
    added_at: string;
    position: Generated<number>;
  };
  /** Content hashes whose blobs a release is deleting, or deleted not long ago (`claimContentRelease`). */
  content_releases: { sha256: string; started_at: string; ended_at: string | null };
  /** Values shared by every replica, each written once (`ensureSetting`). */
  settings: { name: string; value: string; created_at: string };
  project_entry_keys: {
    tenant_id: string;
    project_id: string;
    entry_id: string;
    identity_key: string;
  };
}
