import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { documentRecordOf } from '../../test/helpers/storage-deployments.js';
import { FsBlobStore } from '../adapters/fs/fs-blob-store.js';
import { createSqliteProjectStore } from '../adapters/sqlite/sqlite-project-store.js';
import { emptyPaper } from '../domain/paper.js';
import { documentBlobKey } from '../services/storage/blob-layout.js';
import { backupDataDir } from './data-dir-backup.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe('backupDataDir', () => {
  it('leaves out a PDF deleted between the snapshot and the copy of the blobs, keeping its entry without it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-backup-unit-'));
    const target = await mkdtemp(join(tmpdir(), 'alexandria-backup-target-'));
    folders.push(dataDir, target);
    const store = await createSqliteProjectStore(join(dataDir, 'alexandria.db'));
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    await store.ensureTenant('t1');
    await store.ensureProject('t1', 'gpt');
    for (const name of ['kept', 'deleted']) {
      const sha256 = name === 'kept' ? 'a'.repeat(64) : 'b'.repeat(64);
      await blobs.put(documentBlobKey(sha256), new Uint8Array([37, 80, 68, 70]));
      await store.addEntry('t1', 'gpt', {
        entryId: `ent_${name}`,
        paper: { ...emptyPaper(name), year: 2024 },
        document: documentRecordOf('t1', sha256, 4),
        identityKeys: [],
      });
    }
    await store.close();
    // The server deletes "deleted" after the project store's snapshot, before its blobs are copied.
    await backupDataDir(
      { dataDir, projectsPath: join(dataDir, 'alexandria.db'), indexPath: join(dataDir, 'index.db') },
      target,
      'test',
      (step) => {
        if (step.startsWith('blobs ')) rmSync(join(dataDir, 'blobs', documentBlobKey('b'.repeat(64))));
      },
    );
    const copy = new Database(join(target, 'alexandria.db'), { readonly: true });
    try {
      expect(copy.prepare('SELECT id FROM documents').all()).toEqual([{ id: `doc_${'a'.repeat(24)}` }]);
      expect(
        copy.prepare('SELECT entry_id, document_id FROM project_entries ORDER BY entry_id').all(),
      ).toEqual([
        { entry_id: 'ent_deleted', document_id: null },
        { entry_id: 'ent_kept', document_id: `doc_${'a'.repeat(24)}` },
      ]);
    } finally {
      copy.close();
    }
  });
});
