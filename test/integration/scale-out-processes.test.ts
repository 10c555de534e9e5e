// Issue 12, item 4: the scale-out deployment as an operator runs it, with real processes. Two
// `alexandria serve` replicas (API only) and one `alexandria worker`, each with a data dir of its
// own, on one PostgreSQL database, one Redis and one S3 endpoint (s3rver on loopback). Records go in
// through `alexandria ingest`; every request is real HTTP; replicas and workers die by SIGKILL.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-job-queue.js';
import { S3BlobStore } from '../../src/adapters/s3/s3-blob-store.js';
import { editorialPdf, figureAtlasPdf, figurePaperPdf } from '../helpers/generated-pdfs.js';
import { fixtures, needsPostgresExtension, needsRedis } from '../helpers/requirements.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { deleteRedisKeys, testPostgresUrl, testRedisUrl } from '../helpers/services.js';

const run = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const database = `alexandria_scale_${run}`;
const databaseUrl = testPostgresUrl.replace(/\/[^/]*$/, `/${database}`);
const jobPrefix = `test:scale:${run}`;
const bucket = 'alexandria-scale';
const aclSample = join(fixtures, 'corpus', 'acl_anthology_sample_500.jsonl');

interface Pdf {
  bytes: Uint8Array<ArrayBuffer>;
  sha256: string;
}
const pdfOf = (buffer: Buffer): Pdf => {
  const bytes = new Uint8Array(buffer);
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
};
// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
/** Two pages: the embedding job of a fresh worker is still running when it is killed. */
const editorial = pdfOf(await editorialPdf());
/** Two figures, and a question with a known answer. */
const pasa = pdfOf(await figurePaperPdf());
/** Eight figures, stored one after another: the replica is killed after the first. */
const dps = pdfOf(await figureAtlasPdf());

const children = new Set<ChildProcess>();
const folders: string[] = [];
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
let s3: S3rver;
let s3Dir = '';
let blobs: S3BlobStore;
let jobs: BullMqJobQueue;
let sharedEnv: Record<string, string> = {};

interface Replica {
  url: string;
  dataDir: string;
  child: ChildProcess;
}
let replicaA: Replica;
let replicaB: Replica;
let adminKey = '';
/** Tenant lab-y's key, registered by replica B at its start (ALEXANDRIA_API_KEYS). */
const keyY = `alx_${createHash('sha256').update(run).digest('hex').slice(0, 40)}`;
const workerDirs: string[] = [];
let worker: ChildProcess;

async function adminQuery(text: string, url = testPostgresUrl): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

function newDataDir(): string {
  const folder = mkdtempSync(join(tmpdir(), 'alexandria-scale-'));
  folders.push(folder);
  return folder;
}

/** `alexandria <args>` with the deployment's shared configuration and a data dir of its own. */
function cli(dataDir: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawnCli(dataDir, args, { ...sharedEnv, ...env });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A one-shot CLI command run to its end. */
async function runCli(
  dataDir: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = cli(dataDir, args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data: Buffer) => {
    stdout += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString();
  });
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

/** An API-only replica (queued jobs are the worker's); `env` adds to the shared configuration. */
async function startReplica(env: Record<string, string> = {}): Promise<Replica & { adminKey?: string }> {
  const dataDir = newDataDir();
  const child = cli(dataDir, ['serve'], { ALEXANDRIA_RUN_JOBS: 'false', ...env });
  child.stdout?.resume(); // logs, warnings only: not read, but never left to fill the pipe
  return { ...(await serverListening(child)), dataDir, child };
}

async function startWorker(): Promise<ChildProcess> {
  const dataDir = newDataDir();
  workerDirs.push(dataDir);
  const child = cli(dataDir, ['worker']);
  child.stdout?.resume();
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
      if (stderr.includes('worker is running jobs')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${code}): ${stderr}`)));
  });
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** A GET (or another request) to a replica with an API key; the body as JSON. */
async function call(replica: Replica, key: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${replica.url}${path}`, {
    ...init,
    headers: { 'x-alexandria-api-key': key, ...(init.headers ?? {}) },
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read the JSON freely
  return { status: response.status, headers: response.headers, body: body as any };
}

function uploadForm(pdf: Pdf, filename: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([pdf.bytes], { type: 'application/pdf' }), filename);
  return form;
}

const upload = (replica: Replica, key: string, pdf: Pdf, project: string, filename = 'paper.pdf') =>
  call(replica, key, `/api/add_to_project?project_name=${encodeURIComponent(project)}`, {
    method: 'POST',
    body: uploadForm(pdf, filename),
  });

const search = (replica: Replica, key: string, keywords: string) =>
  call(
    replica,
    key,
    `/api/fast_paper_search?keywords=${encodeURIComponent(keywords)}&peer_reviewed_only=false&limit=10`,
  );

/** The answer with the replica's own origin taken out (hints name the origin a request came to). */
const comparable = (replica: Replica, body: unknown) =>
  JSON.parse(JSON.stringify(body).replaceAll(replica.url, '<origin>'));

/** Every chunk of a filed PDF's text and every figure link in it, as one replica serves them. */
async function readFullText(replica: Replica, key: string, pdfId: string) {
  const first = await call(replica, key, `/api/fulltext?pdf_id=${pdfId}`);
  expect(first.status).toBe(200);
  const chunks: string[] = [];
  const links: string[] = [];
  for (let chunk = 1; chunk <= first.body.total_chunk_num; chunk += 1) {
    const page = (await call(replica, key, `/api/fulltext?pdf_id=${pdfId}&chunk=${chunk}`)).body.chunks[0];
    chunks.push(page.chunk);
    links.push(...page.img_mds);
  }
  return { chunks, links };
}

/** The path of a figure link in Markdown, after checking it names `origin` (where it was asked). */
function figurePath(markdown: string, origin: string): string {
  const match = /\((http:\/\/[^/]+)(\/files\/figures\/[0-9a-f]{64}\/[\w-]+\.png\?exp=\d+&sig=[\w-]+)\)$/.exec(
    markdown,
  );
  expect(match?.[1]).toBe(origin);
  return match?.[2] ?? '';
}

async function s3Keys(folder: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobs.list(folder)) keys.push(blob.key);
  return keys.sort();
}

beforeAll(async () => {
  await adminQuery(`create database ${database}`);
  s3Dir = mkdtempSync(join(tmpdir(), 'alexandria-scale-s3-'));
  s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  const endpoint = `http://127.0.0.1:${((await s3.run()) as { port: number }).port}`;
  blobs = new S3BlobStore({
    bucket,
    region: 'us-east-1',
    endpoint,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });
  jobs = new BullMqJobQueue({ url: testRedisUrl, prefix: jobPrefix });
  sharedEnv = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: testRedisUrl,
    ALEXANDRIA_S3_BUCKET: bucket,
    ALEXANDRIA_S3_ENDPOINT: endpoint,
    ALEXANDRIA_S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    ALEXANDRIA_JOB_PREFIX: jobPrefix,
    // A dead worker's job is taken over within a few seconds.
    ALEXANDRIA_JOB_LOCK_MS: '2000',
    // Local index only: nothing leaves the machine.
    ALEXANDRIA_SOURCES: '',
  };
  // The first replica meets an empty database: it migrates it and prints the first admin key.
  const first = await startReplica();
  if (!first.adminKey) throw new Error('the first replica printed no admin key');
  adminKey = first.adminKey;
  replicaA = first;
  [replicaB, worker] = await Promise.all([
    startReplica({ ALEXANDRIA_API_KEYS: `lab-y:${keyY}` }),
    startWorker(),
  ]);
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await jobs?.close();
  blobs?.close();
  await deleteRedisKeys(redis, jobPrefix);
  await redis.quit();
  await s3?.close();
  await adminQuery(`drop database if exists ${database} with (force)`);
  for (const folder of [...folders, s3Dir]) await rm(folder, { recursive: true, force: true });
}, 60_000);

describe.skipIf((await needsPostgresExtension()) || (await needsRedis()))(
  'two serve replicas and a worker with data dirs of their own, on PostgreSQL + Redis + S3',
  () => {
    let keyX = '';

    it('share keys, projects and tenant isolation: a key made on one replica works on the other', async () => {
      // Tenant X's key is made by `alexandria keys create` on replica A's host; Y's was registered
      // by replica B from its configuration; the admin key was printed by A's first start.
      const made = await runCli(replicaA.dataDir, ['keys', 'create', '--tenant', 'lab-x', '--json']);
      expect(made.code, made.stderr).toBe(0);
      keyX = JSON.parse(made.stdout).key;
      // Every one of them works on both replicas.
      for (const replica of [replicaA, replicaB]) {
        for (const key of [adminKey, keyX, keyY])
          expect((await call(replica, key, '/api/projects')).status).toBe(200);
        expect((await call(replica, 'alx_not_a_key', '/api/projects')).status).toBe(401);
      }

      const created = await call(replicaA, keyX, '/api/create_project?project_name=Survey', {
        method: 'POST',
      });
      expect(created.status).toBe(200);
      const projectId = created.body.id as string;
      // Replica B knows X's project at once, and refuses a second one of that name.
      expect(
        (await call(replicaB, keyX, '/api/projects')).body.map((project: { name: string }) => project.name),
      ).toContain('Survey');
      expect(
        (await call(replicaB, keyX, '/api/create_project?project_name=Survey', { method: 'POST' })).status,
      ).toBe(409);
      // Tenant Y sees none of it, on either replica.
      for (const replica of [replicaA, replicaB]) {
        const names = (await call(replica, keyY, '/api/projects')).body.map(
          (project: { name: string }) => project.name,
        );
        expect(names).not.toContain('Survey');
        expect((await call(replica, keyY, `/api/projects/${projectId}`)).status).toBe(404);
        expect((await call(replica, keyX, `/api/projects/${projectId}`)).status).toBe(200);
      }
    }, 60_000);

    it('answer searches identically after `alexandria ingest`, a query cached before the ingest included', async () => {
      const query = 'dependency parsing';
      // Asked on both replicas before the ingest, twice, so the empty answer sits in every cache.
      for (let round = 0; round < 2; round += 1) {
        for (const replica of [replicaA, replicaB]) {
          const before = await search(replica, keyX, query);
          expect(before.status).toBe(200);
          expect(before.headers.get('x-total-count')).toBe('0');
        }
      }
      const ingested = await runCli(replicaA.dataDir, ['ingest', '--no-progress', '--json', aclSample]);
      expect(ingested.code, ingested.stderr).toBe(0);
      expect(JSON.parse(ingested.stdout).inserted).toBe(500);
      // The one layout (decision 0058), recorded when the index is set up.
      const layout = await adminQuery(
        "select value from paper_index_settings where name = 'layout'",
        databaseUrl,
      );
      expect(layout.rows[0]?.value).toBe('inverted');

      const [onA, onB] = await Promise.all([search(replicaA, keyX, query), search(replicaB, keyX, query)]);
      const total = Number(onA.headers.get('x-total-count'));
      expect(total).toBeGreaterThan(10);
      expect(onB.headers.get('x-total-count')).toBe(String(total));
      expect(comparable(replicaB, onB.body)).toEqual(comparable(replicaA, onA.body));
      // Other queries and pages, first asked after the ingest, and a record looked up by id.
      for (const path of [
        `/api/abstracts?keywords=${encodeURIComponent('machine translation')}&peer_reviewed_only=false&limit=5&offset=5`,
        `/api/fast_paper_search?query=${encodeURIComponent('"text annotation"')}&peer_reviewed_only=false&sort=publication_date`,
        '/api/paper?paper_id=ACL:2022.acl-demo.1',
      ]) {
        const [a, b] = await Promise.all([call(replicaA, keyY, path), call(replicaB, keyY, path)]);
        expect(a.status, path).toBe(200);
        expect(comparable(replicaB, b.body), path).toEqual(comparable(replicaA, a.body));
      }
      expect((await call(replicaB, keyY, '/api/paper?paper_id=ACL:2022.acl-demo.1')).body.title).toBe(
        'DoTAT: A Domain-oriented Text Annotation Tool',
      );
    }, 60_000);

    it('finish a job once when its worker is killed with -9 mid-job and a new worker starts', async () => {
      const job = () => jobs.get('embed-passages', editorial.sha256);
      const added = await upload(replicaB, keyX, editorial, 'Survey');
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      // The fresh worker takes the job (loading its model, then embedding) and is killed outright.
      await expect.poll(async () => (await job())?.state, { timeout: 20_000, interval: 20 }).toBe('active');
      await killHard(worker);
      expect(await s3Keys('question-vectors')).toEqual([]);

      worker = await startWorker();
      await expect
        .poll(async () => (await job())?.state, { timeout: 45_000, interval: 100 })
        .toBe('completed');
      expect((await job())?.starts).toBe(2);
      expect(await s3Keys('question-vectors')).toHaveLength(1);
      // The filed PDF answers on the other replica from the stored vectors.
      const pdfId = added.body[0].pdf_id as string;
      const answer = await call(
        replicaA,
        keyX,
        `/api/question?pdf_id=${encodeURIComponent(pdfId)}&question=${encodeURIComponent('How strong was the T-cell response to vaccination in patients with solid tumours?')}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.chunks[0].chunk).toMatch(/severely attenuated in patients with solid tumours/);
      expect(await s3Keys('question-vectors')).toHaveLength(1);
    }, 90_000);

    it('serve a PDF uploaded on one replica on the other: fulltext, question and figure links', async () => {
      const added = await upload(replicaA, keyX, pasa, 'Survey', 'pasa.pdf');
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const pdfId = encodeURIComponent(added.body[0].pdf_id as string);

      const [onB, onA] = [
        await readFullText(replicaB, keyX, pdfId),
        await readFullText(replicaA, keyX, pdfId),
      ];
      expect(onB.chunks[0]).toMatch(/A river delta grows where a river slows down/);
      expect(onB.chunks).toEqual(onA.chunks);
      expect(onB.links).toHaveLength(2);
      // Links signed by B, fetched from B and from A, and a link signed by A, fetched from B.
      const signedByB = figurePath(onB.links[0] ?? '', replicaB.url);
      const signedByA = figurePath(onA.links[1] ?? '', replicaA.url);
      for (const [replica, path] of [
        [replicaB, signedByB],
        [replicaA, signedByB],
        [replicaB, signedByA],
      ] as const) {
        const image = await fetch(`${replica.url}${path}`);
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toBe('image/png');
        expect(
          Buffer.from(await image.arrayBuffer())
            .subarray(0, 8)
            .toString('hex'),
        ).toBe('89504e470d0a1a0a');
      }

      const question =
        'By how many metres a year did the free delta advance, and how fast did the delta below the reservoir retreat?';
      const answer = await call(
        replicaB,
        keyX,
        `/api/question?pdf_id=${pdfId}&question=${encodeURIComponent(question)}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.chunks[0].chunk).toMatch(/The free delta advanced by four metres a year on average/);
      // The other tenant can read none of it, on either replica.
      for (const replica of [replicaA, replicaB]) {
        expect((await call(replica, keyY, `/api/fulltext?pdf_id=${pdfId}`)).status).toBe(404);
        expect((await call(replica, keyY, `/api/question?pdf_id=${pdfId}&question=agents`)).status).toBe(404);
      }
    }, 90_000);

    it('lose and duplicate nothing when a replica is killed with -9 during an upload and it is retried on the other', async () => {
      // Killed as soon as S3 starts storing the first of the PDF's eight figures, with the rest of
      // the parse's output and the filing (PDF, row, project entry) still to do.
      const figureFolder = join(s3Dir, bucket, 'figures', dps.sha256.slice(0, 2), dps.sha256);
      const interrupted = upload(replicaA, keyX, dps, 'Survey', 'dps.pdf').then(
        (response) => ({ status: response.status }),
        (error: unknown) => ({ error }),
      );
      await expect.poll(() => existsSync(figureFolder), { timeout: 30_000, interval: 2 }).toBe(true);
      await killHard(replicaA.child);
      const outcome = await interrupted;
      expect(outcome).toHaveProperty('error');

      // The user retries on the other replica (twice: a double submit), then reads it anywhere.
      const retried = await upload(replicaB, keyX, dps, 'Survey', 'dps.pdf');
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      const again = await upload(replicaB, keyX, dps, 'Survey', 'dps.pdf');
      expect(again.status).toBe(200);
      expect(again.body[0].pdf_id).toBe(retried.body[0].pdf_id);
      const text = await call(
        replicaB,
        keyX,
        `/api/fulltext?pdf_id=${encodeURIComponent(retried.body[0].pdf_id)}`,
      );
      expect(text.status).toBe(200);

      // One document row and one stored PDF per upload made, one entry each in the project.
      const documents = await adminQuery(
        "select sha256 from documents where tenant_id = 'lab-x' order by sha256",
        databaseUrl,
      );
      const uploaded = [editorial, pasa, dps].map((pdf) => pdf.sha256).sort();
      expect(documents.rows.map((row) => row.sha256)).toEqual(uploaded);
      expect(await s3Keys('documents')).toEqual(
        uploaded.map((sha) => `documents/${sha.slice(0, 2)}/${sha}.pdf`),
      );
      expect((await s3Keys(`figures/${dps.sha256.slice(0, 2)}/${dps.sha256}`)).length).toBe(8);
      const project = await call(replicaB, keyX, '/api/projects/Survey');
      expect(project.status).toBe(200);
      expect(project.body.papers).toHaveLength(3);
      // Its embedding is one job for the one document (not waited for: ten pages take a while).
      const embedding = await jobs.get('embed-passages', dps.sha256);
      expect(embedding).toMatchObject({ lane: 'lab-x', payload: { pdfId: retried.body[0].pdf_id } });
      expect(embedding?.starts).toBeLessThanOrEqual(1);
    }, 90_000);

    it('leave every replica, worker and CLI data dir empty', async () => {
      for (const dataDir of [replicaA.dataDir, replicaB.dataDir, ...workerDirs]) {
        expect(await readdir(dataDir, { recursive: true }), dataDir).toEqual([]);
      }
    });
  },
);
