// The two windows a SIGKILL during add_to_project could leave half-written (decision record 0020),
// hit deterministically: a storage failure injected exactly between the two writes stands for the
// kill (SQLite triggers raise in the second write), then the state a restart finds is checked.
import { mkdir, mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { emptyPaper } from '../../src/domain/paper.js';
import { createContainer } from '../../src/main.js';
import { sha256Hex } from '../../src/platform/ids.js';
import { createLogger } from '../../src/platform/logger.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import type { ProjectStore } from '../../src/ports/project-store.js';
import { DocumentStorage } from '../../src/services/documents/document-storage.js';
import { documentBlobKey } from '../../src/services/storage/blob-layout.js';
import { type BlobSweepOptions, sweepBlobs } from '../../src/services/storage/blob-sweep.js';
import { ContentRelease } from '../../src/services/storage/content-release.js';
import { editorialPdf, figurePaperPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { multipartBody } from '../helpers/multipart.js';
import { documentRecordOf, storageDeployments } from '../helpers/storage-deployments.js';
import { createTestApp, offline, type TestApp, withKey } from '../helpers/test-app.js';

const hour = 3600_000;
const later = () => new Date(Date.now() + 2 * hour);

/** The sweep as the server runs it: one hour of grace, a day of cache retention. */
function sweep(blobs: BlobStore, store: ProjectStore, options: Pick<BlobSweepOptions, 'now'> = {}) {
  return sweepBlobs({
    blobs,
    store,
    release: new ContentRelease({ store, blobs }),
    graceMs: hour,
    cacheRetentionMs: 24 * hour,
    ...options,
  });
}

let t: TestApp;
let db: Database.Database;
let editorial: Buffer;
let korean: Buffer;

beforeAll(async () => {
  t = await createTestApp();
  db = new Database(join(t.dataDir, 'alexandria.db'));
  // Three distinct PDFs, written by pdfkit from our own texts.
  editorial = await editorialPdf();
  korean = await figurePaperPdf();
});

afterAll(async () => {
  db.close();
  await t.close();
});

/** Makes every insert into `table` fail until the returned function is called: the "kill". */
function crashBeforeInsertInto(table: string): () => void {
  db.exec(`CREATE TRIGGER crash_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'killed'); END`);
  return () => db.exec(`DROP TRIGGER crash_${table}`);
}

async function upload(bytes: Buffer, query: string) {
  const form = multipartBody([
    { name: 'file', filename: 'paper.pdf', contentType: 'application/pdf', data: bytes },
  ]);
  return t.app.inject({
    method: 'POST',
    url: `/api/add_to_project${query}`,
    headers: { ...withKey(t.key), 'content-type': form.contentType },
    payload: form.body,
  });
}

const projectRows = (name: string) =>
  db.prepare('SELECT id FROM projects WHERE name = ?').all(name) as Array<{ id: string }>;

describe('a kill between two writes of add_to_project', () => {
  it('leaves no empty project when it lands between creating the project and filing its entry (empty project from a kill)', async () => {
    const recover = crashBeforeInsertInto('project_entries');
    const failed = await upload(editorial, '?project_name=Interrupted');
    recover();
    expect(failed.statusCode).toBe(500);
    // The project insert and the entry insert are one transaction now: neither is there.
    expect(projectRows('Interrupted')).toEqual([]);
    const names = (await t.app.inject({ method: 'GET', url: '/api/projects', headers: withKey(t.key) }))
      .json()
      .map((project: { name: string }) => project.name);
    expect(names).not.toContain('Interrupted');
    // Repeated after the "restart", the add completes with one project holding the entry.
    const done = await upload(editorial, '?project_name=Interrupted');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()[0].hint).toMatch(/^Added to project "Interrupted"/);
    const [project] = projectRows('Interrupted');
    const entries = db
      .prepare('SELECT COUNT(*) AS n FROM project_entries WHERE project_id = ?')
      .get(project?.id);
    expect(entries).toEqual({ n: 1 });
  });

  it('leaves a PDF blob without its row, which the sweep removes once older than the grace period (unreferenced PDF blob)', async () => {
    const blobs = t.container.stores.blobs;
    const store = t.container.stores.projects;
    const orphan = sha256Hex(korean);
    const orphanKey = documentBlobKey(orphan);
    const recover = crashBeforeInsertInto('documents');
    const failed = await upload(korean, '?project_name=Orphaned');
    recover();
    expect(failed.statusCode).toBe(500);
    // The window: the bytes are stored, no row names them, and no project was made.
    expect(await blobs.has(orphanKey)).toBe(true);
    expect((await store.storedContent([orphan])).size).toBe(0);
    expect(projectRows('Orphaned')).toEqual([]);
    const referenced = sha256Hex(editorial);
    expect((await store.storedContent([referenced])).has(referenced)).toBe(true);
    const parsedOf = async (sha256: string) => {
      const keys = [];
      for await (const blob of blobs.list(`parsed/${sha256.slice(0, 2)}/${sha256}`)) keys.push(blob.key);
      return keys;
    };
    // The add parsed before it stored anything: the orphan's parse is cached too.
    expect(await parsedOf(orphan)).toHaveLength(1);

    // Right away it may be an add in flight (here or on another replica): left alone.
    const now = await sweep(blobs, store);
    expect(now.released).toEqual([]);
    expect(await blobs.has(orphanKey)).toBe(true);
    // After a restart two hours later: released with its parse; the referenced PDF and its parse stay.
    const restart = await sweep(blobs, store, { now: later });
    expect(restart.released).toEqual([orphan]);
    expect(await blobs.has(orphanKey)).toBe(false);
    expect(await parsedOf(orphan)).toEqual([]);
    expect(await blobs.has(documentBlobKey(referenced))).toBe(true);
    expect(await parsedOf(referenced)).toHaveLength(1);
    expect(restart.areas.documents.objects).toBe(1);
    // The repeated add stores the PDF again, row and blob.
    const done = await upload(korean, '?project_name=Orphaned');
    expect(done.statusCode, done.body).toBe(200);
    expect(await blobs.has(orphanKey)).toBe(true);
    expect((await store.storedContent([orphan])).has(orphan)).toBe(true);
  });

  it('puts back an orphan blob that an add adopts when a sweep deletes it before the row is written', async () => {
    const blobs = t.container.stores.blobs;
    const store = t.container.stores.projects;
    const bytes = await gaugingReportPdf(20);
    const sha256 = sha256Hex(bytes);
    // Left by an earlier kill: found by `has`, so the add does not write it again.
    await blobs.put(documentBlobKey(sha256), bytes);
    // Another instance's sweep (clock two hours on) runs between the add's `has` and its row insert.
    const racing: ProjectStore = new Proxy(store, {
      get(target, property) {
        if (property === 'addEntry') {
          return async (...args: Parameters<ProjectStore['addEntry']>) => {
            const swept = await sweep(blobs, target, { now: later });
            expect(swept.released).toEqual([sha256]);
            return target.addEntry(...args);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const documents = new DocumentStorage(racing, blobs);
    const record = await documents.storeBytes('tenant-a', bytes, { sha256 });
    const project = await t.container.services.projects.resolve('tenant-a', {});
    await racing.addEntry('tenant-a', project.id, {
      entryId: 'ent_adopted',
      paper: { ...emptyPaper('Adopted'), year: 2023 },
      document: record,
      identityKeys: [],
    });
    expect(await blobs.has(record.blobKey)).toBe(false);
    await documents.settle(record, bytes);
    expect(record.blobKey).toBe(documentBlobKey(sha256));
    expect(Buffer.from((await blobs.get(record.blobKey)) ?? []).equals(bytes)).toBe(true);
  });
});

describe('the sweep at server start', () => {
  it('removes an old unreferenced PDF left in the data folder and keeps a fresh one', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-sweep-start-'));
    try {
      const oldKey = documentBlobKey('1'.repeat(64));
      const freshKey = documentBlobKey('2'.repeat(64));
      const oddKey = 'documents/notes.txt';
      // What a kill between writing and renaming leaves (FsBlobStore's temporary file).
      const oldTemporary = 'figures/ab/ab01.png.0123456789ab.tmp';
      const freshTemporary = 'documents/33/3333.pdf.ba9876543210.tmp';
      for (const key of [oldKey, freshKey, oddKey, oldTemporary, freshTemporary]) {
        await mkdir(join(dataDir, 'blobs', key, '..'), { recursive: true });
        await writeFile(join(dataDir, 'blobs', key), '%PDF-1.4 left by a kill');
      }
      const past = new Date(Date.now() - 3 * hour);
      for (const key of [oldKey, oddKey, oldTemporary]) await utimes(join(dataDir, 'blobs', key), past, past);
      const config = loadConfig({ ...offline, ALEXANDRIA_DATA_DIR: dataDir, ALEXANDRIA_LOG_LEVEL: 'silent' });
      const container = await createContainer(config, createLogger({ level: 'silent' }), {
        background: true,
      });
      try {
        const blobs = container.stores.blobs;
        const exists = (key: string) =>
          stat(join(dataDir, 'blobs', key)).then(
            () => true,
            () => false,
          );
        const deadline = Date.now() + 10_000;
        while (((await blobs.has(oldKey)) || (await exists(oldTemporary))) && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        expect(await blobs.has(oldKey)).toBe(false);
        expect(await blobs.has(freshKey)).toBe(true);
        // Not a key the documents storage writes: not the sweep's to delete.
        expect(await blobs.has(oddKey)).toBe(true);
        expect(await exists(oldTemporary)).toBe(false);
        expect(await exists(freshTemporary)).toBe(true);
      } finally {
        await container.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the sweep outside the server', () => {
  it('the orphan-blob sweep runs in every process that builds the container: a CLI container deletes nothing', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-sweep-cli-'));
    try {
      const oldKey = documentBlobKey('4'.repeat(64));
      const path = join(dataDir, 'blobs', oldKey);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, '%PDF-1.4 left by a kill');
      const past = new Date(Date.now() - 3 * hour);
      await utimes(path, past, past);
      const config = loadConfig({ ...offline, ALEXANDRIA_DATA_DIR: dataDir, ALEXANDRIA_LOG_LEVEL: 'silent' });
      // What `alexandria ingest`, `keys` and `mcp` build (src/cli/context.ts).
      const container = await createContainer(config, createLogger({ level: 'silent' }));
      try {
        // A sweep started with the container takes a few milliseconds for one blob.
        await new Promise((r) => setTimeout(r, 500));
        expect(await container.stores.blobs.has(oldKey)).toBe(true);
      } finally {
        await container.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** The same sweep on both deployments: filesystem + SQLite, and S3 + PostgreSQL (scale-out). */
describe.each(storageDeployments)('the sweep on $name', ({ open }) => {
  it('deletes only document blobs that are unreferenced and older than the grace period', async () => {
    const { store, blobs, close } = await open();
    try {
      await store.ensureTenant('t1');
      await store.ensureTenant('t2');
      const hashes = ['a', 'b', 'c', 'd', 'e'].map((digit) => digit.repeat(64));
      const keys = hashes.map(documentBlobKey);
      for (const key of keys) await blobs.put(key, new Uint8Array([37, 80, 68, 70]));
      // A key of no shape the layout writes: not the sweep's to judge.
      await blobs.put('parsed/aa/cache.json', new Uint8Array([123, 125]));
      // a: filed by one tenant; b: by another (blobs are shared by content); c: a row no entry
      // holds (what an older release left after removing its last entry); d, e: orphans.
      for (const [tenantId, digit] of [
        ['t1', 'a'],
        ['t2', 'b'],
      ] as const) {
        await store.ensureProject(tenantId, 'gpt');
        await store.addEntry(tenantId, 'gpt', {
          entryId: `e_${digit}`,
          paper: { ...emptyPaper(`Paper ${digit}`), year: 2020 },
          document: documentRecordOf(tenantId, digit.repeat(64), 4),
          identityKeys: [],
        });
      }
      await store.putDocument(documentRecordOf('t1', 'c'.repeat(64), 4));
      const fresh = await sweep(blobs, store);
      expect(fresh.released).toEqual([]);
      expect(fresh.unfiledDocuments).toBe(0);
      const swept = await sweep(blobs, store, { now: later });
      expect(swept.unfiledDocuments).toBe(1);
      expect(swept.released.sort()).toEqual(hashes.slice(2));
      const left = [];
      for await (const blob of blobs.list('documents')) left.push(blob.key);
      expect(left.sort()).toEqual(keys.slice(0, 2));
      expect(swept.areas.documents).toEqual({ objects: 2, bytes: 8 });
      expect(await blobs.has('parsed/aa/cache.json')).toBe(true);
    } finally {
      await close();
    }
  });
});
