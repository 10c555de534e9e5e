// Crash safety of deletion (decision 0041): a real `alexandria serve` is killed with SIGKILL in the
// middle of deleting a project whose PDFs it must free — right after the removal committed, and
// while the blobs are being deleted — on the embedded deployment (filesystem + SQLite) and on the
// scale-out one (S3 on loopback + PostgreSQL). After each kill no entry points at a missing
// document and no document at a missing PDF; after the restarted server's sweep no blob is left
// that no document references, and the PDFs of the project that was not deleted are whole.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/adapters/s3/s3-blob-store.js';
import { sha256Hex } from '../../src/platform/ids.js';
import { classifyBlobKey } from '../../src/services/storage/blob-layout.js';
import { samplePaperPdf } from '../helpers/sample-paper.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { testPostgresUrl } from '../helpers/services.js';

const hour = 3600_000;
const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of cleanups.reverse()) await cleanup();
}, 60_000);

/** Every file below `folder`; a folder removed while it is read (the sweep at work) holds none. */
async function filesBelow(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesBelow(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

/** What a deployment gives the test: its server settings, its blobs and its database, read directly. */
interface Deployment {
  dataDir: string;
  env: Record<string, string>;
  /** Every blob key in the store (temporary files excluded). */
  blobKeys(): Promise<string[]>;
  query<Row>(text: string): Promise<Row[]>;
  /** Makes every stored blob look written three hours ago (the restart is "later"). */
  backdateBlobs(): Promise<void>;
}

async function embedded(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'alexandria-delete-crash-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const root = join(dataDir, 'blobs');
  return {
    dataDir,
    env: {},
    blobKeys: async () =>
      (await filesBelow(root)).map((path) => relative(root, path)).filter((key) => !key.endsWith('.tmp')),
    query: async <Row>(text: string) => {
      const db = new Database(join(dataDir, 'alexandria.db'));
      try {
        if (/^\s*select/i.test(text)) return db.prepare(text).all() as Row[];
        db.exec(text);
        return [];
      } finally {
        db.close();
      }
    },
    backdateBlobs: async () => {
      const past = new Date(Date.now() - 3 * hour);
      for (const path of await filesBelow(root)) await utimes(path, past, past);
    },
  };
}

async function scaleOut(): Promise<Deployment> {
  const run = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const database = `alexandria_delete_crash_${run}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: testPostgresUrl });
    await client.connect();
    await client.query(text).finally(() => client.end());
  };
  await admin(`create database ${database}`);
  cleanups.push(() => admin(`drop database if exists ${database} with (force)`));
  const databaseUrl = testPostgresUrl.replace(/\/[^/]*$/, `/${database}`);
  const s3Dir = mkdtempSync(join(tmpdir(), 'alexandria-delete-crash-s3-'));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'crash', configs: [] }],
  });
  const endpoint = `http://127.0.0.1:${((await s3.run()) as { port: number }).port}`;
  const blobs = new S3BlobStore({
    bucket: 'crash',
    region: 'us-east-1',
    endpoint,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'alexandria-delete-crash-scale-'));
  cleanups.push(async () => {
    blobs.close();
    await s3.close();
    await rm(s3Dir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    env: {
      DATABASE_URL: databaseUrl,
      ALEXANDRIA_S3_BUCKET: 'crash',
      ALEXANDRIA_S3_ENDPOINT: endpoint,
      ALEXANDRIA_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    blobKeys: async () => {
      const keys = [];
      for (const area of ['documents', 'parsed', 'figures', 'pages', 'references', 'question-vectors']) {
        for await (const blob of blobs.list(area)) keys.push(blob.key);
      }
      return keys;
    },
    query: async <Row>(text: string) => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(text)).rows as Row[];
      } finally {
        await client.end();
      }
    },
    // s3rver dates an object by its file's modification time.
    backdateBlobs: async () => {
      const past = new Date(Date.now() - 3 * hour);
      for (const path of await filesBelow(join(s3Dir, 'crash'))) await utimes(path, past, past);
    },
  };
}

interface Server {
  url: string;
  key: string;
  child: ChildProcess;
}

async function startServer(deployment: Deployment, key?: string): Promise<Server> {
  const child = spawnCli(deployment.dataDir, ['serve'], {
    ALEXANDRIA_RATE_LIMIT_PER_MINUTE: '1000000',
    ALEXANDRIA_RATE_LIMIT_BURST: '1000000',
    ALEXANDRIA_SOURCES: '',
    ...deployment.env,
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.stdout?.resume();
  const { url, adminKey } = await serverListening(child);
  const apiKey = key ?? adminKey;
  if (!apiKey) throw new Error('no API key was printed on the first start');
  return { url, key: apiKey, child };
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

async function call(server: Server, method: string, path: string, body?: FormData) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-alexandria-api-key': server.key },
    ...(body ? { body } : {}),
  });
  return { status: response.status, text: await response.text() };
}

/** Files `count` PDFs in `project` and uses them fully: read, drawn at every stored width, embedded. */
async function fileProject(server: Server, deployment: Deployment, project: string, seeds: number[]) {
  const hashes: string[] = [];
  for (const seed of seeds) {
    const bytes = samplePaperPdf({ seed, pages: 4 });
    hashes.push(sha256Hex(bytes));
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), `paper-${seed}.pdf`);
    const added = await call(server, 'POST', `/api/add_to_project?project_name=${project}`, form);
    if (added.status !== 200) throw new Error(`upload: ${added.status} ${added.text}`);
    const ref = encodeURIComponent(JSON.parse(added.text)[0].pdf_id);
    expect((await call(server, 'GET', `/api/fulltext?pdf_id=${ref}`)).status).toBe(200);
    for (const page of [1, 2]) {
      for (const width of [250, 500, 1000, 1500, 2000]) {
        expect(
          (await call(server, 'GET', `/api/page_image?pdf_id=${ref}&page=${page}&width=${width}`)).status,
        ).toBe(200);
      }
    }
  }
  // Embedded in the background since each add: wait, so no late write lands after the kill.
  await expect
    .poll(
      async () => {
        const keys = await deployment.blobKeys();
        return hashes.every((sha256) =>
          keys.some((key) => key.startsWith(`question-vectors/${sha256.slice(0, 2)}/${sha256}/`)),
        );
      },
      { timeout: 180_000, interval: 250 },
    )
    .toBe(true);
  return hashes;
}

/** Blob keys filed under any of `hashes`. */
async function blobsOf(deployment: Deployment, hashes: readonly string[]): Promise<string[]> {
  const wanted = new Set(hashes);
  return (await deployment.blobKeys()).filter((key) => {
    const kind = classifyBlobKey(key);
    return (kind.kind === 'document' || kind.kind === 'derived') && wanted.has(kind.sha256);
  });
}

/** No entry without its document row, no document row without its PDF. */
async function expectNoDanglingEntry(deployment: Deployment): Promise<void> {
  const dangling = await deployment.query<{ entry_id: string }>(
    `select e.entry_id from project_entries e left join documents d on d.tenant_id = e.tenant_id and d.id = e.document_id
     where e.document_id is not null and d.id is null`,
  );
  expect(dangling).toEqual([]);
  const rows = await deployment.query<{ blob_key: string }>('select blob_key from documents');
  const keys = new Set(await deployment.blobKeys());
  expect(rows.filter((row) => !keys.has(row.blob_key))).toEqual([]);
}

/** Every blob filed under a content hash belongs to a document row. */
async function orphanBlobs(deployment: Deployment): Promise<string[]> {
  const stored = new Set(
    (await deployment.query<{ sha256: string }>('select sha256 from documents')).map((row) => row.sha256),
  );
  return (await deployment.blobKeys()).filter((key) => {
    const kind = classifyBlobKey(key);
    return (kind.kind === 'document' || kind.kind === 'derived') && !stored.has(kind.sha256);
  });
}

const deployments = [
  { name: 'filesystem and SQLite', open: embedded },
  { name: 'S3 and PostgreSQL', open: scaleOut },
];

describe.each(deployments)('SIGKILL while a deletion frees storage, on $name', ({ open }) => {
  it('leaves no dangling entry, and after the next sweep no blob that nothing references', async () => {
    const deployment = await open();
    let server = await startServer(deployment);
    const kept = await fileProject(server, deployment, 'Kept', [100]);
    const found: string[] = [];

    // Round 1: killed as soon as the removal has committed (the project row is gone).
    // Round 2: killed once the freeing of blobs has visibly started but is not finished.
    for (const round of [1, 2]) {
      const project = `Doomed${round}`;
      const doomed = await fileProject(server, deployment, project, [
        round * 10,
        round * 10 + 1,
        round * 10 + 2,
      ]);
      const before = (await blobsOf(deployment, doomed)).length;
      const projectId = (
        await deployment.query<{ id: string }>(`select id from projects where name = '${project}'`)
      )[0]?.id;
      const deletion = call(server, 'DELETE', `/api/projects/${projectId}`).catch(() => null);
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`round ${round}: the deletion never started`);
        const started =
          round === 1
            ? (await deployment.query(`select id from projects where name = '${project}'`)).length === 0
            : (await blobsOf(deployment, doomed)).length < before;
        if (started) break;
      }
      await killHard(server.child);
      await deletion;

      // Whatever the kill interrupted: no entry or document points at missing bytes.
      await expectNoDanglingEntry(deployment);
      expect(await deployment.query(`select id from projects where name = '${project}'`)).toEqual([]);
      const left = (await blobsOf(deployment, doomed)).length;
      const marks = await deployment.query<{ sha256: string }>(
        'select sha256 from content_releases where ended_at is null',
      );
      found.push(`round ${round}: ${left} of ${before} blobs left, ${marks.length} releases cut short`);

      // The restart is "later": blobs and release marks are older than the grace period.
      await deployment.backdateBlobs();
      const past = new Date(Date.now() - 3 * hour).toISOString();
      await deployment.query(`update content_releases set started_at = '${past}' where ended_at is null`);
      server = await startServer(deployment, server.key);
      // The sweep runs in the background at start: it ends the releases it finishes last.
      const pending = () => deployment.query('select sha256 from content_releases where ended_at is null');
      await expect.poll(pending, { timeout: 30_000, interval: 200 }).toEqual([]);
      await expect.poll(() => orphanBlobs(deployment), { timeout: 30_000, interval: 200 }).toEqual([]);
      expect(await blobsOf(deployment, doomed)).toEqual([]);
      await expectNoDanglingEntry(deployment);
      // The project that was not deleted is whole: its PDF reads, its pages draw.
      const keptRef = (await deployment.query<{ id: string }>('select id from documents'))[0]?.id;
      const keptProject = (
        await deployment.query<{ id: string }>(`select id from projects where name = 'Kept'`)
      )[0]?.id;
      const ref = encodeURIComponent(`PROJ:${keptProject}/${keptRef}`);
      expect((await call(server, 'GET', `/api/fulltext?pdf_id=${ref}`)).status).toBe(200);
      expect((await call(server, 'GET', `/api/page_image?pdf_id=${ref}&page=2`)).status).toBe(200);
      expect((await blobsOf(deployment, kept)).length).toBeGreaterThan(10);
    }
    process.stdout.write(`deletion crash: ${found.join('; ')}\n`);
    // The second kill landed while blobs were being freed: some were gone, some still there.
    expect(found[1]).toMatch(/round 2: [1-9]\d* of \d+ blobs left/);
    await killHard(server.child);
  }, 900_000);
});
