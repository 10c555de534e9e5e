// Issue 12, jobs and workers: embed-on-add was a promise in the replica that received the PDF, lost
// when that process died. Now it is an `embed-passages` job in Redis: a replica that runs no jobs
// queues it, `alexandria worker` processes run it, and a worker killed with -9 in the middle leaves
// it to the next worker, which stores the vectors once.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-job-queue.js';
import { editorialPdf } from '../helpers/generated-pdfs.js';
import { needsRedis } from '../helpers/requirements.js';
import { serverListening, spawnCli } from '../helpers/server-process.js';
import { deleteRedisKeys, testRedisUrl } from '../helpers/services.js';

const pdf = await editorialPdf();
const sha256 = createHash('sha256').update(pdf).digest('hex');
const prefix = `test:jobs:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
const children = new Set<ChildProcess>();
const folders: string[] = [];
const redisMissing = await needsRedis();
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (!redisMissing) await deleteRedisKeys(redis, prefix);
  redis.disconnect();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

function cli(dataDir: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawnCli(dataDir, args, {
    REDIS_URL: testRedisUrl,
    ALEXANDRIA_JOB_PREFIX: prefix,
    // A dead worker's job is taken over within a few seconds.
    ALEXANDRIA_JOB_LOCK_MS: '1500',
    ...env,
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** `alexandria worker`, once it says it is running jobs. */
async function startWorker(dataDir: string): Promise<ChildProcess> {
  const child = cli(dataDir, ['worker']);
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

const vectorFiles = (dataDir: string) => {
  const folder = join(dataDir, 'blobs', 'question-vectors');
  return existsSync(folder)
    ? readdirSync(folder, { recursive: true }).filter((name) => String(name).endsWith('.bin'))
    : [];
};

describe('alexandria worker', () => {
  it('refuses to start without REDIS_URL, saying why', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-worker-'));
    folders.push(dataDir);
    const child = cli(dataDir, ['worker'], { REDIS_URL: '' });
    let stderr = '';
    child.stderr?.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    const [code] = await once(child, 'exit');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: alexandria worker takes its jobs from Redis: set REDIS_URL/);
  }, 30_000);
});

describe.skipIf(redisMissing)('embed-passages jobs with real processes on Redis', () => {
  it('a replica that runs no jobs queues one; a worker killed with -9 mid-job leaves it to the next, which stores the vectors once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'alexandria-worker-'));
    folders.push(dataDir);
    const jobs = new BullMqJobQueue({ url: testRedisUrl, prefix });
    const job = () => jobs.get('embed-passages', sha256);
    try {
      // The PDF's parse is a job too (test/integration/parse-jobs.test.ts): a replica that runs jobs
      // and embeds nothing parses it first, so the API-only replica below finds it parsed.
      const warmUp = cli(dataDir, ['serve'], { ALEXANDRIA_EMBED_ON_ADD: 'false' });
      const warm = await serverListening(warmUp);
      const parseForm = new FormData();
      parseForm.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'paper.pdf');
      const parsed = await fetch(`${warm.url}/api/add_to_project?project_name=Parsed`, {
        method: 'POST',
        headers: { 'x-alexandria-api-key': warm.adminKey ?? '' },
        body: parseForm,
      });
      expect(parsed.status, await parsed.clone().text()).toBe(200);
      const warmedUp = once(warmUp, 'exit');
      warmUp.kill('SIGTERM');
      await warmedUp;
      expect(await job()).toBeNull();

      // An API-only replica: it files the PDF and queues the embedding, and runs nothing.
      const server = cli(dataDir, ['serve'], { ALEXANDRIA_RUN_JOBS: 'false' });
      const { url } = await serverListening(server);
      const adminKey = warm.adminKey; // printed at the first start in this data dir only
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'paper.pdf');
      const added = await fetch(`${url}/api/add_to_project?project_name=Reading`, {
        method: 'POST',
        headers: { 'x-alexandria-api-key': adminKey ?? '' },
        body: form,
      });
      expect(added.status, await added.clone().text()).toBe(200);
      const pdfId = ((await added.json()) as Array<{ pdf_id: string }>)[0]?.pdf_id;
      await expect.poll(job, { timeout: 5000, interval: 50 }).toMatchObject({
        state: 'waiting',
        lane: 'default',
        payload: { tenant: 'default', pdfId, sha256 },
      });
      // The same PDF again (another upload, as another replica would get it): still one job.
      const again = new FormData();
      again.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'again.pdf');
      const second = await fetch(`${url}/api/add_to_project?project_name=Elsewhere`, {
        method: 'POST',
        headers: { 'x-alexandria-api-key': adminKey ?? '' },
        body: again,
      });
      expect(second.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await job()).toMatchObject({ state: 'waiting', starts: 0, payload: { pdfId } });
      const stopped = once(server, 'exit');
      server.kill('SIGTERM');
      await stopped;

      // The first worker takes the job and is killed outright while it embeds.
      const first = await startWorker(dataDir);
      await expect.poll(async () => (await job())?.state, { timeout: 20_000, interval: 25 }).toBe('active');
      const killed = once(first, 'exit');
      first.kill('SIGKILL');
      await killed;
      expect(vectorFiles(dataDir)).toHaveLength(0);
      expect((await job())?.state).toBe('active'); // held by a dead worker until its lock expires

      // The next worker takes it over and finishes it.
      const next = await startWorker(dataDir);
      await expect
        .poll(async () => (await job())?.state, { timeout: 45_000, interval: 100 })
        .toBe('completed');
      expect((await job())?.starts).toBe(2);
      expect(vectorFiles(dataDir)).toHaveLength(1);

      // SIGTERM: the idle worker stops promptly and cleanly.
      const exited = once(next, 'exit');
      next.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      await jobs.close();
    }
  }, 90_000);
});
