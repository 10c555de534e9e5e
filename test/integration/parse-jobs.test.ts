// Issue 12, jobs and workers, item 2's PDF parsing: add_to_project parsed inside the request of
// whichever replica received the PDF, so two replicas given the same PDF parsed it twice, and the
// parse died with its replica. With REDIS_URL the parse is now a `parse-pdf` job (one per content
// hash and parser version) that the replica queues or joins and waits for: parsed once, by any
// process that runs jobs, in the tenants' turns, and taken over by another worker after a kill -9.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-job-queue.js';
import { loadConfig } from '../../src/config/load-config.js';
import { createHttpApp } from '../../src/http/server.js';
import { type Container, createContainer } from '../../src/main.js';
import { WorkerPdfExtractor } from '../../src/pdf/worker-pdf-extractor.js';
import { createLogger } from '../../src/platform/logger.js';
import { parsePdfJob } from '../../src/services/jobs/pdf-parse-job.js';
import { editorialPdf, gaugingReportPdf } from '../helpers/generated-pdfs.js';
import { needsRedis } from '../helpers/requirements.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { deleteRedisKeys, testRedisUrl } from '../helpers/services.js';
import { offline, type TestApp, uploadPdf } from '../helpers/test-app.js';

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
// Written by pdfkit from our own texts (test/helpers/generated-pdfs.ts).
const thesis = await gaugingReportPdf(1200); // 1,201 pages, a few seconds to parse
const shannon = await gaugingReportPdf(200); // 201 pages
const editorial = await editorialPdf(); // 2 pages

const runPrefix = `test:parse-jobs:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
let prefixes = 0;
const redisMissing = await needsRedis();
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
const folders: string[] = [];
const children = new Set<ChildProcess>();
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await deleteRedisKeys(redis, runPrefix);
  await redis.quit();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function newFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'alexandria-parse-jobs-'));
  folders.push(folder);
  return folder;
}

/** The `parse-pdf` job id queued for these bytes (content hash + parser version), once it exists. */
async function parseJobId(prefix: string, sha256: string): Promise<string | undefined> {
  const [key] = await redis.keys(`${prefix}:${parsePdfJob}:run:${sha256}:*`);
  return key?.slice(`${prefix}:${parsePdfJob}:run:`.length);
}

/** A replica in this process, on a data dir and job prefix it may share with others; runs jobs. */
async function replica(dataDir: string, prefix: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    ...offline,
    ALEXANDRIA_DATA_DIR: dataDir,
    ALEXANDRIA_LOG_LEVEL: 'silent',
    REDIS_URL: testRedisUrl,
    ALEXANDRIA_JOB_PREFIX: prefix,
    ALEXANDRIA_EMBED_ON_ADD: 'false',
    ...env,
  });
  const container: Container = await createContainer(config, createLogger({ level: 'silent' }), {
    runJobs: true,
  });
  const app: FastifyInstance = await createHttpApp(container);
  await app.ready();
  closers.push(async () => {
    await app.close();
    await container.close();
  });
  return { app, container } as Pick<TestApp, 'app' | 'container'>;
}

describe.skipIf(redisMissing)('parse-pdf jobs on Redis, replicas in this process', () => {
  it('parses a PDF that two replicas (one database, one blob folder, one Redis) receive at once once', async () => {
    const dataDir = await newFolder();
    prefixes += 1;
    const prefix = `${runPrefix}:${prefixes}`;
    const extract = vi.spyOn(WorkerPdfExtractor.prototype, 'extract');
    try {
      const first = await replica(dataDir, prefix);
      const second = await replica(dataDir, prefix);
      const keyA = (await first.container.services.auth.createKey('tenant-a')).key;
      const keyB = (await second.container.services.auth.createKey('tenant-b')).key;
      const [a, b] = await Promise.all([
        uploadPdf(first as TestApp, keyA, 'shannon.pdf', shannon),
        uploadPdf(second as TestApp, keyB, 'a-theory.pdf', shannon),
      ]);
      expect(a.statusCode, a.body).toBe(200);
      expect(b.statusCode, b.body).toBe(200);
      // One parse in the two processes' extractors together, both answers from it.
      expect(extract).toHaveBeenCalledTimes(1);
      const [paperA, paperB] = [a.json()[0], b.json()[0]];
      expect(paperA.title).toBe('Yearly report of the river gauging network');
      expect(paperB.title).toBe(paperA.title);
      expect(paperA.pdf_id.split('/')[1]).toBe(paperB.pdf_id.split('/')[1]);
      const id = await parseJobId(prefix, sha256Of(shannon));
      expect(await first.container.jobs.get(parsePdfJob, id ?? '')).toMatchObject({
        state: 'completed',
        starts: 1,
      });
      // Each tenant reads the document through the other replica.
      const read = await second.app.inject({
        method: 'GET',
        url: `/api/fulltext?pdf_id=${encodeURIComponent(paperA.pdf_id)}`,
        headers: { 'x-alexandria-api-key': keyA },
      });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.body).toContain('cubic metres per second');
      expect(extract).toHaveBeenCalledTimes(1);
    } finally {
      extract.mockRestore();
    }
  }, 120_000);

  it('answers a truncated PDF with 422 from its job, parses it once, and keeps none of its bytes', async () => {
    const dataDir = await newFolder();
    prefixes += 1;
    const prefix = `${runPrefix}:${prefixes}`;
    const extract = vi.spyOn(WorkerPdfExtractor.prototype, 'extract');
    try {
      const app = await replica(dataDir, prefix);
      const key = (await app.container.services.auth.createKey('tenant-a')).key;
      // Unique bytes per run: a failure remembered in the shared Redis cache would skip the parse.
      const broken = Buffer.concat([editorial.subarray(0, 2000), Buffer.from(`%${prefix}`)]);
      for (const attempt of [1, 2]) {
        const response = await uploadPdf(app as TestApp, key, 'broken.pdf', broken);
        expect(response.statusCode, `attempt ${attempt}`).toBe(422);
        expect(response.json().error).toMatchObject({ code: 'unprocessable', param: 'file' });
      }
      expect(extract).toHaveBeenCalledTimes(1);
      const id = await parseJobId(prefix, sha256Of(broken));
      expect(await app.container.jobs.get(parsePdfJob, id ?? '')).toMatchObject({
        state: 'completed',
        starts: 1,
      });
      const stored = join(dataDir, 'blobs', 'documents');
      expect(
        existsSync(stored)
          ? readdirSync(stored, { recursive: true }).filter((name) => String(name).endsWith('.pdf'))
          : [],
      ).toEqual([]);
    } finally {
      extract.mockRestore();
    }
  }, 60_000);

  it('keeps tenants’ turns: another tenant’s small PDF is parsed before the second of two large ones queued just before it', async () => {
    const dataDir = await newFolder();
    prefixes += 1;
    const prefix = `${runPrefix}:${prefixes}`;
    const app = await replica(dataDir, prefix, {
      ALEXANDRIA_PDF_WORKER_THREADS: '1',
      ALEXANDRIA_PDF_TIMEOUT_MS: '300000',
    });
    const keyA = (await app.container.services.auth.createKey('tenant-a')).key;
    const keyB = (await app.container.services.auth.createKey('tenant-b')).key;
    const finished: string[] = [];
    const track = (name: string, reply: ReturnType<typeof uploadPdf>) =>
      reply.then((response) => {
        finished.push(name);
        return response;
      });
    const big = [track('thesis', uploadPdf(app as TestApp, keyA, 'thesis.pdf', thesis))];
    const thesisJob = await vi.waitFor(
      async () => {
        const id = await parseJobId(prefix, sha256Of(thesis));
        expect((await app.container.jobs.get(parsePdfJob, id ?? ''))?.state).toBe('active');
        return id as string;
      },
      { timeout: 30_000, interval: 20 },
    );
    big.push(track('shannon', uploadPdf(app as TestApp, keyA, 'shannon.pdf', shannon)));
    await vi.waitFor(
      async () => {
        const id = await parseJobId(prefix, sha256Of(shannon));
        expect((await app.container.jobs.get(parsePdfJob, id ?? ''))?.state).toBe('waiting');
      },
      { timeout: 30_000, interval: 20 },
    );
    const small = track('editorial', uploadPdf(app as TestApp, keyB, 'editorial.pdf', editorial));
    const [smallReply, ...bigReplies] = await Promise.all([small, ...big]);
    for (const reply of [smallReply, ...bigReplies]) expect(reply?.statusCode, reply?.body).toBe(200);
    expect(finished).toEqual(['thesis', 'editorial', 'shannon']);
    expect((await app.container.jobs.get(parsePdfJob, thesisJob))?.lane).toBe('tenant-a');
  }, 300_000);
});

describe.skipIf(redisMissing)('parse-pdf jobs with real processes on Redis', () => {
  it('a worker killed with -9 mid-parse leaves the job to the next worker, and add_to_project answers', async () => {
    const dataDir = await newFolder();
    prefixes += 1;
    const prefix = `${runPrefix}:${prefixes}`;
    const cli = (args: string[], env: Record<string, string> = {}) => {
      const child = spawnCli(dataDir, args, {
        REDIS_URL: testRedisUrl,
        ALEXANDRIA_JOB_PREFIX: prefix,
        // A dead worker's job is taken over within a few seconds.
        ALEXANDRIA_JOB_LOCK_MS: '1500',
        ALEXANDRIA_EMBED_ON_ADD: 'false',
        ...env,
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    };
    const startWorker = async () => {
      const child = cli(['worker']);
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        child.stderr?.on('data', (data: Buffer) => {
          stderr += data.toString();
          if (stderr.includes('worker is running jobs')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`worker exited early (${code}): ${stderr}`)));
      });
      return child;
    };
    const jobs = new BullMqJobQueue({ url: testRedisUrl, prefix });
    const sha256 = sha256Of(thesis);
    const job = async () => jobs.get(parsePdfJob, (await parseJobId(prefix, sha256)) ?? '');
    try {
      // An API-only replica: it queues the parse and waits for it; it parses nothing itself.
      const server = cli(['serve'], { ALEXANDRIA_RUN_JOBS: 'false' });
      const { url, adminKey } = await serverListening(server);
      const first = await startWorker();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(thesis)], { type: 'application/pdf' }), 'thesis.pdf');
      let answered = false;
      const added = fetch(`${url}/api/add_to_project?project_name=Reading`, {
        method: 'POST',
        headers: { 'x-alexandria-api-key': adminKey ?? '' },
        body: form,
      }).finally(() => {
        answered = true;
      });

      // The first worker takes the parse and is killed outright in the middle of it.
      await expect.poll(async () => (await job())?.state, { timeout: 30_000, interval: 25 }).toBe('active');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const killed = once(first, 'exit');
      first.kill('SIGKILL');
      await killed;
      const parsed = join(dataDir, 'blobs', 'parsed', sha256.slice(0, 2), sha256);
      expect(existsSync(parsed)).toBe(false);
      expect((await job())?.state).toBe('active'); // held by a dead worker until its lock expires
      expect(answered).toBe(false);

      // The next worker takes it over and finishes it; the replica's request then answers.
      const next = await startWorker();
      const response = await added;
      const body = await response.text();
      expect(response.status, body).toBe(200);
      expect(JSON.parse(body)[0].title).toBe('Yearly report of the river gauging network');
      expect(await job()).toMatchObject({ state: 'completed', starts: 2 });
      expect(readdirSync(parsed).filter((name) => name.endsWith('.json'))).toHaveLength(1);

      for (const child of [next, server]) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const [code] = await exited;
        expect(code).toBe(0);
      }
    } finally {
      await jobs.close();
    }
  }, 180_000);
});
