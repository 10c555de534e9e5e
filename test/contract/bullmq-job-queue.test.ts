import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BullMqJobQueue, type BullMqJobQueueOptions } from '../../src/adapters/redis/bullmq-job-queue.js';
import { needsRedis } from '../helpers/requirements.js';
import { deleteRedisKeys, testRedisUrl } from '../helpers/services.js';
import { runJobQueueContract } from './job-queue.contract.js';

// Every queue of this file lives under one prefix of its own, deleted at the end.
const runPrefix = `test:jobs:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
let queues = 0;
/** A prefix no other queue of this file uses. */
const nextPrefix = () => {
  queues += 1;
  return `${runPrefix}:${queues}`;
};
const redisMissing = await needsRedis();
const redis = new Redis(testRedisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
afterAll(async () => {
  await deleteRedisKeys(redis, runPrefix);
  await redis.quit();
});

const fresh = (options: Partial<BullMqJobQueueOptions> = {}) =>
  new BullMqJobQueue({
    url: testRedisUrl,
    prefix: nextPrefix(),
    lockDurationMs: 1000,
    stalledIntervalMs: 500,
    shutdownGraceMs: 200,
    ...options,
  });
const poll = { timeout: 20_000, interval: 50 };

describe.skipIf(redisMissing)('on Redis', () => {
  runJobQueueContract('Redis (BullMQ)', async (settings) => fresh(settings));

  describe('BullMQ job queue across processes', () => {
    it('adds one job when two replicas enqueue the same document at once', async () => {
      const first = fresh();
      const second = new BullMqJobQueue({ url: testRedisUrl, prefix: `${runPrefix}:${queues}` });
      try {
        const added = await Promise.all([
          first.enqueue('embed-passages', { n: 1 }, { id: 'sha', lane: 'a' }),
          second.enqueue('embed-passages', { n: 2 }, { id: 'sha', lane: 'b' }),
          first.enqueue('embed-passages', { n: 3 }, { id: 'sha', lane: 'a' }),
        ]);
        expect(added.filter((job) => job.created)).toHaveLength(1);
        let runs = 0;
        second.process('embed-passages', async () => {
          runs += 1;
        });
        await expect
          .poll(async () => (await first.get('embed-passages', 'sha'))?.state, poll)
          .toBe('completed');
        expect(runs).toBe(1);
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('puts a running job back in the queue when its worker shuts down, for another worker to finish', async () => {
      const prefix = nextPrefix();
      const stopping = fresh({ prefix });
      let aborted = false;
      stopping.process('embed', async (_payload, { signal }) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        aborted = true;
      });
      await stopping.enqueue('embed', { doc: 1 }, { id: 'doc', lane: 't' });
      await expect.poll(async () => (await stopping.get('embed', 'doc'))?.state, poll).toBe('active');
      await stopping.close(); // grace 200 ms, then released
      expect(aborted).toBe(true);
      const taking = fresh({ prefix });
      try {
        expect((await taking.get('embed', 'doc'))?.state).toBe('waiting');
        const attempts: number[] = [];
        taking.process('embed', async (_payload, context) => {
          attempts.push(context.attempt);
        });
        await expect.poll(async () => (await taking.get('embed', 'doc'))?.state, poll).toBe('completed');
        expect(attempts).toHaveLength(1);
        // Released is not failed: no retry was spent.
        expect((await taking.get('embed', 'doc'))?.error).toBeUndefined();
      } finally {
        await taking.close();
      }
    });

    it('takes over the job of a worker that died holding it (lock expired, stalled check)', async () => {
      const prefix = nextPrefix();
      const jobs = fresh({ prefix });
      await jobs.enqueue('embed', { doc: 2 }, { id: 'doc', lane: 't' });
      // A worker that takes the job and then stops renewing its lock, as a process killed with -9 would.
      const connection = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
      let taken: () => void = () => {};
      const tookIt = new Promise<void>((resolve) => {
        taken = resolve;
      });
      const dying = new Worker(
        'embed',
        async () => {
          taken();
          await new Promise(() => {}); // never finishes
        },
        { connection, prefix, lockDuration: 1000, skipStalledCheck: true },
      );
      await tookIt;
      await dying.close(true);
      await connection.quit();
      expect((await jobs.get('embed', 'doc'))?.state).toBe('active');
      const runs: number[] = [];
      jobs.process('embed', async (_payload, context) => {
        runs.push(context.attempt);
      });
      try {
        await expect.poll(async () => (await jobs.get('embed', 'doc'))?.state, poll).toBe('completed');
        expect(runs).toEqual([2]);
        expect((await jobs.get('embed', 'doc'))?.starts).toBe(2);
      } finally {
        await jobs.close();
      }
    });
  });
});
