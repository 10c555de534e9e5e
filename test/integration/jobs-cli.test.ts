// `alexandria jobs`: failed jobs were visible only as log warnings. The CLI lists the queue by
// state, shows failed jobs with their errors and queues them again; real Redis, real CLI process.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-job-queue.js';
import { embedPassagesJob } from '../../src/services/jobs/passage-embedding-job.js';
import { spawnCli } from '../helpers/server-process.js';
import { deleteRedisKeys, testRedisUrl } from '../helpers/services.js';

const prefix = `test:jobs-cli:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
const folder = mkdtempSync(join(tmpdir(), 'alexandria-jobs-cli-'));
afterAll(async () => {
  const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
  await deleteRedisKeys(redis, prefix);
  await redis.quit();
  rmSync(folder, { recursive: true, force: true });
});

async function jobsCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnCli(folder, ['jobs', ...args], {
    REDIS_URL: testRedisUrl,
    ALEXANDRIA_JOB_PREFIX: prefix,
  });
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

describe('alexandria jobs', () => {
  it('counts jobs by state, lists a failed job with its error, and queues it again', async () => {
    const queue = new BullMqJobQueue({ url: testRedisUrl, prefix, attempts: 1 });
    let healthy = false;
    queue.process(embedPassagesJob, async () => {
      if (!healthy) throw new Error('the model file is missing');
    });
    try {
      await queue.enqueue(
        embedPassagesJob,
        { tenant: 't', pdfId: 'PROJ:x', sha256: 'a' },
        { id: 'doc-a', lane: 't' },
      );
      await expect
        .poll(async () => (await queue.get(embedPassagesJob, 'doc-a'))?.state, { timeout: 15_000 })
        .toBe('failed');

      const listed = await jobsCli(['list', '--json']);
      expect(listed.code).toBe(0);
      const counts = JSON.parse(listed.stdout) as Array<{ type: string; state: string; count: number }>;
      expect(counts).toContainEqual({ type: embedPassagesJob, state: 'failed', count: 1 });

      const failed = await jobsCli(['failed', '--type', embedPassagesJob, '--json']);
      expect(JSON.parse(failed.stdout)).toMatchObject([
        { type: embedPassagesJob, id: 'doc-a', lane: 't', error: 'the model file is missing' },
      ]);

      healthy = true;
      const retried = await jobsCli(['retry', '--type', embedPassagesJob]);
      expect(retried.stdout.trim()).toBe('Queued 1 failed job again.');
      await expect
        .poll(async () => (await queue.get(embedPassagesJob, 'doc-a'))?.state, { timeout: 15_000 })
        .toBe('completed');

      const unknown = await jobsCli(['failed', '--type', 'no-such-job']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('Unknown job type "no-such-job"');
    } finally {
      await queue.close();
    }
  }, 90_000);
});
