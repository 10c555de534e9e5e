import { type Kysely, type Migration, Migrator } from 'kysely';

/**
 * Versioned migrations of the project store. Written with Kysely's schema builder so the same list
 * runs on SQLite and PostgreSQL. Never edit a released migration: add the next one.
 */
const migrations: Record<string, Migration> = {
  '0001_projects': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tenants')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('tenant_id', 'text', (column) =>
          column.notNull().references('tenants.id').onDelete('cascade'),
        )
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('prefix', 'text', (column) => column.notNull())
        .addColumn('key_hash', 'text', (column) => column.notNull().unique())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema
        .createTable('projects')
        .addColumn('tenant_id', 'text', (column) =>
          column.notNull().references('tenants.id').onDelete('cascade'),
        )
        .addColumn('id', 'text', (column) => column.notNull())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('projects_pk', ['tenant_id', 'id'])
        .addUniqueConstraint('projects_name_unique', ['tenant_id', 'name'])
        .execute();
      await db.schema
        .createTable('documents')
        .addColumn('tenant_id', 'text', (column) =>
          column.notNull().references('tenants.id').onDelete('cascade'),
        )
        .addColumn('id', 'text', (column) => column.notNull())
        .addColumn('sha256', 'text', (column) => column.notNull())
        .addColumn('blob_key', 'text', (column) => column.notNull())
        .addColumn('byte_size', 'bigint', (column) => column.notNull())
        .addColumn('content_type', 'text', (column) => column.notNull())
        .addColumn('filename', 'text')
        .addColumn('source_url', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('documents_pk', ['tenant_id', 'id'])
        .addUniqueConstraint('documents_sha_unique', ['tenant_id', 'sha256'])
        .execute();
      await db.schema
        .createTable('project_entries')
        .addColumn('tenant_id', 'text', (column) => column.notNull())
        .addColumn('project_id', 'text', (column) => column.notNull())
        .addColumn('entry_id', 'text', (column) => column.notNull())
        .addColumn('paper_json', 'text', (column) => column.notNull())
        .addColumn('document_id', 'text')
        .addColumn('added_at', 'text', (column) => column.notNull())
        .addColumn('position', 'integer', (column) => column.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('project_entries_pk', ['tenant_id', 'project_id', 'entry_id'])
        .addForeignKeyConstraint(
          'project_entries_project_fk',
          ['tenant_id', 'project_id'],
          'projects',
          ['tenant_id', 'id'],
          (constraint) => constraint.onDelete('cascade'),
        )
        .execute();
      await db.schema
        .createTable('project_entry_keys')
        .addColumn('tenant_id', 'text', (column) => column.notNull())
        .addColumn('project_id', 'text', (column) => column.notNull())
        .addColumn('entry_id', 'text', (column) => column.notNull())
        .addColumn('identity_key', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('project_entry_keys_pk', ['tenant_id', 'project_id', 'identity_key'])
        .addForeignKeyConstraint(
          'project_entry_keys_entry_fk',
          ['tenant_id', 'project_id', 'entry_id'],
          'project_entries',
          ['tenant_id', 'project_id', 'entry_id'],
          (constraint) => constraint.onDelete('cascade'),
        )
        .execute();
      await db.schema
        .createIndex('project_entries_document')
        .on('project_entries')
        .columns(['tenant_id', 'project_id', 'document_id'])
        .execute();
    },
  },
  // The sweep of unreferenced PDF blobs asks, across tenants, which blob keys have a row.
  '0002_documents_blob_key': {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('documents_blob_key').on('documents').column('blob_key').execute();
    },
  },
  // Values every replica must agree on (the figure-link signing secret), written once by whichever
  // replica comes first (docs/decisions/0021-replica-shared-state.md).
  '0003_settings': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('settings')
        .addColumn('name', 'text', (column) => column.primaryKey())
        .addColumn('value', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
    },
  },
  // Deleting documents frees their blobs (docs/decisions/0041-deletion-that-frees-storage.md): a row
  // per content hash whose blobs are being deleted (adds of that content wait while `ended_at` is
  // null) and, once ended, kept for a while so the sweep knows late writes to it are leftovers; and
  // the lookups a release and the sweep make across tenants by hash and by filed document.
  '0004_content_releases': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('content_releases')
        .addColumn('sha256', 'text', (column) => column.primaryKey())
        .addColumn('started_at', 'text', (column) => column.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('documents_sha256').on('documents').column('sha256').execute();
      await db.schema
        .createIndex('project_entries_tenant_document')
        .on('project_entries')
        .columns(['tenant_id', 'document_id'])
        .execute();
    },
  },
  // Imports before 0049 filed BibTeX `and others` as an author named "others": it becomes the
  // record's "et al." flag (docs/decisions/0049-lossless-metadata.md). Rows are read in pages.
  '0005_others_is_et_al': {
    async up(db: Kysely<unknown>) {
      const entries = db as unknown as Kysely<EntryRows>;
      let after = { tenant_id: '', project_id: '', entry_id: '' };
      for (;;) {
        const rows = await entries
          .selectFrom('project_entries')
          .select(['tenant_id', 'project_id', 'entry_id', 'paper_json'])
          .where((eb) =>
            eb.or([
              eb('tenant_id', '>', after.tenant_id),
              eb.and([eb('tenant_id', '=', after.tenant_id), eb('project_id', '>', after.project_id)]),
              eb.and([
                eb('tenant_id', '=', after.tenant_id),
                eb('project_id', '=', after.project_id),
                eb('entry_id', '>', after.entry_id),
              ]),
            ]),
          )
          .orderBy('tenant_id')
          .orderBy('project_id')
          .orderBy('entry_id')
          .limit(500)
          .execute();
        for (const row of rows) {
          const fixed = withoutOthersAuthor(row.paper_json);
          if (fixed === null) continue;
          await entries
            .updateTable('project_entries')
            .set({ paper_json: fixed })
            .where('tenant_id', '=', row.tenant_id)
            .where('project_id', '=', row.project_id)
            .where('entry_id', '=', row.entry_id)
            .execute();
        }
        const last = rows[rows.length - 1];
        if (!last || rows.length < 500) break;
        after = last;
      }
    },
  },
};

type EntryRows = {
  project_entries: { tenant_id: string; project_id: string; entry_id: string; paper_json: string };
};

/**
 * A stored paper record whose authors end in "others" (or "et al."), as the record it should be:
 * that name dropped and `bibliographic.more_authors` set. Null when the record needs no change.
 */
export function withoutOthersAuthor(paperJson: string): string | null {
  if (!/"(others|et al\.?)"/i.test(paperJson)) return null;
  let paper: { authors?: unknown; bibliographic?: Record<string, unknown> };
  try {
    paper = JSON.parse(paperJson);
  } catch {
    return null;
  }
  if (!Array.isArray(paper.authors)) return null;
  const isOthers = (name: unknown) => typeof name === 'string' && /^(others|et al\.?)$/i.test(name.trim());
  if (!paper.authors.some(isOthers)) return null;
  paper.authors = paper.authors.filter((name) => !isOthers(name));
  paper.bibliographic = { ...(paper.bibliographic ?? {}), more_authors: true };
  return JSON.stringify(paper);
}

/** Applies pending migrations; throws with the failing migration's error. */
export async function migrateProjectStore(
  db: Kysely<unknown>,
  options: { schema?: string } = {},
): Promise<void> {
  const migrator = new Migrator({
    db,
    ...(options.schema ? { migrationTableSchema: options.schema } : {}),
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'project_store_migrations',
    migrationLockTableName: 'project_store_migrations_lock',
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
