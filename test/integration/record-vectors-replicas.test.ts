// Issues 12 and 14: record vectors were computed by a loop in every serving process. Two replicas
// sharing one PostgreSQL index each walked it and embedded every record, twice the work on the
// shared cores. Now the walk is a queued job (Redis): one waiting or running at a time across the
// replicas, run where jobs run, taken over by another process when the one walking stops.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresPaperIndex } from '../../src/adapters/postgres/postgres-paper-index.js';
import { BullMqJobQueue } from '../../src/adapters/redis/bullmq-job-queue.js';
import { emptyPaper, type Paper } from '../../src/domain/paper.js';
import type { PaperIndex } from '../../src/ports/paper-index.js';
import { RecordVectorsJob } from '../../src/services/search/record-vectors-job.js';
import { scheduleRecordVectors } from '../../src/services/search/record-vectors-schedule.js';
import { RecordingEmbeddingModel } from '../fakes/recording-embedding-model.js';
import { needsPostgresExtension, needsRedis } from '../helpers/requirements.js';
import {
  deleteRedisKeys,
  dropSchema,
  testPostgresUrl,
  testRedisUrl,
  uniqueSchema,
} from '../helpers/services.js';

const prefix = `test:record-vectors:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
const schemas: string[] = [];
const closers: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
  await deleteRedisKeys(redis, prefix);
  await redis.quit();
  for (const schema of schemas) await dropSchema(schema);
});

const papers = (count: number, from = 0): Paper[] =>
  Array.from({ length: count }, (_, index) => ({
    ...emptyPaper(`Record ${from + index} on protein folding and enzyme kinetics`),
    abstract: `Abstract ${from + index}: measured rates of folding under varied temperature.`,
    doi: `10.5555/replica.${from + index}`,
    type: 'journal-article',
    year: 2020,
  }));

interface Replica {
  index: PaperIndex;
  model: RecordingEmbeddingModel;
  queue: BullMqJobQueue;
  walker: RecordVectorsJob;
  stop(): Promise<void>;
}

/** One replica: its own connection to the shared index and queue, its own model and walker. */
async function replica(
  schema: string,
  options: { run: boolean; queuePrefix?: string; rangeSize?: number },
): Promise<Replica> {
  const index = await createPostgresPaperIndex(testPostgresUrl, { schema, maxConnections: 2 });
  const model = new RecordingEmbeddingModel('test:replica-model');
  // Slow enough that a walk is still running when the other replica's timer fires.
  model.delayMs = 30;
  const queue = new BullMqJobQueue({
    url: testRedisUrl,
    prefix: options.queuePrefix ?? prefix,
    lockDurationMs: 1500,
    shutdownGraceMs: 200,
  });
  const walker = new RecordVectorsJob(index, model, { batchSize: 4, pauseMs: 5, idleMs: 40 });
  const stopScheduling = scheduleRecordVectors(queue, walker, {
    run: options.run,
    enqueue: true,
    idleMs: 40,
    ...(options.rangeSize ? { rangeSize: options.rangeSize } : {}),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    stopScheduling();
    await walker.stop();
    await queue.close();
    await index.close();
  };
  closers.push(stop);
  return { index, model, queue, walker, stop };
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting for the record vectors');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf((await needsPostgresExtension()) || (await needsRedis()))(
  'record vectors as a queued walk shared by replicas',
  () => {
    it('embeds every record once across two replicas, and new records later', async () => {
      const schema = uniqueSchema('record_vectors');
      schemas.push(schema);
      const a = await replica(schema, { run: true });
      const b = await replica(schema, { run: true });
      await a.index.upsert(papers(60));
      const covered = async (count: number) =>
        (await a.index.vectorCoverage?.('test:replica-model'))?.withVectors === count;
      await until(() => covered(60));
      // A few more idle rounds on both replicas: nobody walks again over records that have vectors.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const embedded = [...a.model.documentTexts, ...b.model.documentTexts];
      expect(embedded).toHaveLength(60);
      expect(new Set(embedded).size).toBe(60);

      await b.index.upsert(papers(10, 60));
      await until(() => covered(70));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(a.model.documentTexts.length + b.model.documentTexts.length).toBe(70);
    });

    it('a replica that runs no jobs only asks; the worker walks, and takes over a stopped walk', async () => {
      const schema = uniqueSchema('record_vectors');
      schemas.push(schema);
      // A queue of its own: the replicas of the test above (still running) walk another schema.
      const queuePrefix = `${prefix}:takeover`;
      const serving = await replica(schema, { run: false, queuePrefix });
      await serving.index.upsert(papers(40));
      const first = await replica(schema, { run: true, queuePrefix });
      // Stopped once it has stored a batch or two: its walk ends (the queue releases the job).
      await until(
        async () => ((await serving.index.vectorCoverage?.('test:replica-model'))?.withVectors ?? 0) >= 4,
      );
      await first.stop();
      const stoppedAt = first.model.documentTexts.length;
      expect(stoppedAt).toBeLessThan(40);
      const second = await replica(schema, { run: true, queuePrefix });
      await until(
        async () => (await serving.index.vectorCoverage?.('test:replica-model'))?.withVectors === 40,
      );
      expect(serving.model.documentTexts).toHaveLength(0);
      // The second walker embedded what the first had not stored (at most the batch in flight again).
      const total = stoppedAt + second.model.documentTexts.length;
      expect(total).toBeGreaterThanOrEqual(40);
      expect(total).toBeLessThanOrEqual(44);
    });

    // Record vectors were computed by one job at a time however many workers ran (~3 records/s):
    // the walk is now cut into range jobs that every worker takes at once.
    it('drains the backlog with two workers at once, each taking ranges, every record embedded once', async () => {
      const drain = async (workers: number) => {
        const schema = uniqueSchema('record_ranges');
        schemas.push(schema);
        const queuePrefix = `${prefix}:ranges${workers}`;
        const serving = await replica(schema, { run: false, queuePrefix });
        await serving.index.upsert(papers(96));
        const started = Date.now();
        const running = await Promise.all(
          Array.from({ length: workers }, () => replica(schema, { run: true, queuePrefix, rangeSize: 8 })),
        );
        await until(
          async () => (await serving.index.vectorCoverage?.('test:replica-model'))?.withVectors === 96,
        );
        const seconds = (Date.now() - started) / 1000;
        const shares = running.map((worker) => worker.model.documentTexts.length);
        for (const worker of [...running, serving]) await worker.stop();
        return { seconds, shares };
      };
      const one = await drain(1);
      const two = await drain(2);
      // biome-ignore lint/suspicious/noConsole: the drain times belong in the CI log.
      console.log(
        `record vectors, 96 records, 30 ms per 4-record call: 1 worker ${one.seconds.toFixed(1)} s, 2 workers ${two.seconds.toFixed(1)} s (${(one.seconds / two.seconds).toFixed(2)}×), shares ${two.shares.join('/')}`,
      );
      expect(one.shares).toEqual([96]);
      // Every record once, and both workers took ranges.
      expect(two.shares.reduce((sum, count) => sum + count, 0)).toBe(96);
      for (const share of two.shares) expect(share).toBeGreaterThanOrEqual(16);
    }, 120_000);
  },
);
