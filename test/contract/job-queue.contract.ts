import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { JobContext, JobPayload, JobQueue } from '../../src/ports/job-queue.js';

export interface JobQueueSettings {
  /** Runs of a failing job before it counts as failed. */
  attempts: number;
  retryDelayMs: number;
  /** First wait after a dependency's outage. */
  outageDelayMs: number;
}

const settings: JobQueueSettings = { attempts: 3, retryDelayMs: 50, outageDelayMs: 50 };
const poll = { timeout: 15_000, interval: 20 };

/**
 * The behaviour every JobQueue adapter must have; `create` returns an empty queue (for Redis: a
 * fresh key prefix), closed by the suite.
 */
export function runJobQueueContract(name: string, create: (settings: JobQueueSettings) => Promise<JobQueue>) {
  describe(`JobQueue contract: ${name}`, () => {
    const open: JobQueue[] = [];
    const queue = async () => {
      const created = await create(settings);
      open.push(created);
      return created;
    };
    afterEach(async () => {
      for (const item of open.splice(0)) await item.close();
    });

    it('runs a job with its payload, id, lane and attempt, and reports it completed', async () => {
      const jobs = await queue();
      const seen: Array<{ payload: JobPayload; context: Omit<JobContext, 'signal'> }> = [];
      expect(await jobs.get('greet', 'nobody')).toBeNull();
      const payload = { tenant: 't1', sha256: 'ab'.repeat(32), pages: [1, 2], nested: { ok: true } };
      expect(await jobs.enqueue('greet', payload, { id: 'doc-1', lane: 't1' })).toEqual({
        id: 'doc-1',
        created: true,
      });
      expect((await jobs.get('greet', 'doc-1'))?.state).toBe('waiting');
      jobs.process('greet', async (received, { signal, ...context }) => {
        expect(signal.aborted).toBe(false);
        seen.push({ payload: received, context });
      });
      await expect.poll(async () => (await jobs.get('greet', 'doc-1'))?.state, poll).toBe('completed');
      expect(seen).toEqual([{ payload, context: { id: 'doc-1', lane: 't1', attempt: 1 } }]);
      expect(await jobs.get('greet', 'doc-1')).toMatchObject({ id: 'doc-1', lane: 't1', payload, starts: 1 });
    });

    it('adds one job per id while it waits or runs, and runs the id again once it finished', async () => {
      const jobs = await queue();
      let runs = 0;
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      expect((await jobs.enqueue('embed', { n: 1 }, { id: 'same', lane: 'a' })).created).toBe(true);
      // Waiting: another tenant (another replica) asking for the same document adds nothing.
      expect((await jobs.enqueue('embed', { n: 2 }, { id: 'same', lane: 'b' })).created).toBe(false);
      // Same id under another job type is another job.
      expect((await jobs.enqueue('parse', { n: 3 }, { id: 'same', lane: 'a' })).created).toBe(true);
      jobs.process('embed', async () => {
        runs += 1;
        await held;
      });
      await expect.poll(async () => (await jobs.get('embed', 'same'))?.state, poll).toBe('active');
      // Running: still one job.
      expect((await jobs.enqueue('embed', { n: 4 }, { id: 'same', lane: 'a' })).created).toBe(false);
      release();
      await expect.poll(async () => (await jobs.get('embed', 'same'))?.state, poll).toBe('completed');
      expect(runs).toBe(1);
      expect((await jobs.get('embed', 'same'))?.payload).toEqual({ n: 1 });
      // Finished: the same id may run again (handlers are idempotent).
      expect((await jobs.enqueue('embed', { n: 5 }, { id: 'same', lane: 'a' })).created).toBe(true);
      await expect.poll(() => runs, poll).toBe(2);
    });

    it('takes lanes in turns: a quiet lane does not wait behind a busy lane’s backlog', async () => {
      const jobs = await queue();
      const order: string[] = [];
      for (const id of ['a1', 'a2', 'a3', 'a4']) await jobs.enqueue('work', { id }, { id, lane: 'busy' });
      await jobs.enqueue('work', { id: 'b1' }, { id: 'b1', lane: 'quiet' });
      await jobs.enqueue('work', { id: 'c1' }, { id: 'c1', lane: 'other' });
      jobs.process('work', async (payload) => {
        order.push(String(payload.id));
      });
      await expect.poll(() => order.length, poll).toBe(6);
      expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3', 'a4']);
    });

    it('retries a job whose handler throws, and fails it after the last attempt', async () => {
      const jobs = await queue();
      const attempts: Record<string, number[]> = { flaky: [], broken: [] };
      jobs.process('risky', async (payload, context) => {
        const kind = String(payload.kind);
        attempts[kind]?.push(context.attempt);
        if (kind === 'broken' || context.attempt === 1) throw new Error(`${kind} went wrong`);
      });
      await jobs.enqueue('risky', { kind: 'flaky' }, { id: 'flaky', lane: 't' });
      await jobs.enqueue('risky', { kind: 'broken' }, { id: 'broken', lane: 't' });
      await expect.poll(async () => (await jobs.get('risky', 'flaky'))?.state, poll).toBe('completed');
      await expect.poll(async () => (await jobs.get('risky', 'broken'))?.state, poll).toBe('failed');
      expect(attempts).toEqual({ flaky: [1, 2], broken: [1, 2, 3] });
      expect(await jobs.get('risky', 'flaky')).toMatchObject({ starts: 2 });
      expect(await jobs.get('risky', 'broken')).toMatchObject({ starts: 3, error: 'broken went wrong' });
    });

    // A 10 s PostgreSQL stop failed 107 queued jobs for good within 3 s: every failure spent an
    // attempt. A dependency's outage (AppError 'unavailable') now puts the job back without one.
    it('waits out a dependency outage without spending attempts, then runs the job', async () => {
      const jobs = await queue();
      const runs: number[] = [];
      jobs.process('needs-database', async (_payload, context) => {
        runs.push(context.attempt);
        if (runs.length <= settings.attempts + 1) {
          throw new AppError('unavailable', 'The database is unavailable right now; retry shortly');
        }
      });
      await jobs.enqueue('needs-database', {}, { id: 'outage', lane: 't' });
      await expect
        .poll(async () => (await jobs.get('needs-database', 'outage'))?.state, poll)
        .toBe('completed');
      // More runs than attempts: none of the outages counted as one.
      expect(runs.length).toBe(settings.attempts + 2);
    });

    it('counts jobs by state, lists failed jobs and queues them again', async () => {
      const jobs = await queue();
      let healthy = false;
      expect(await jobs.workerCount('fragile')).toBe(0);
      jobs.process('fragile', async (payload) => {
        if (!healthy && payload.kind === 'bad') throw new Error('bad bytes');
      });
      await jobs.enqueue('fragile', { kind: 'good' }, { id: 'good', lane: 't' });
      await jobs.enqueue('fragile', { kind: 'bad' }, { id: 'bad', lane: 't' });
      await expect.poll(async () => (await jobs.get('fragile', 'bad'))?.state, poll).toBe('failed');
      await expect.poll(async () => (await jobs.get('fragile', 'good'))?.state, poll).toBe('completed');
      expect(await jobs.workerCount('fragile')).toBe(1);
      const counts = await jobs.counts(['fragile', 'unused']);
      const countOf = (type: string, state: string) =>
        counts.find((count) => count.type === type && count.state === state)?.count;
      expect(countOf('fragile', 'failed')).toBe(1);
      expect(countOf('fragile', 'completed')).toBe(1);
      expect(countOf('fragile', 'waiting')).toBe(0);
      expect(countOf('unused', 'delayed')).toBe(0);
      const failed = await jobs.failed('fragile', 10);
      expect(failed.map((job) => [job.id, job.error])).toEqual([['bad', 'bad bytes']]);
      healthy = true;
      expect(await jobs.retryFailed('fragile', 'nothing-like-it')).toBe(0);
      expect(await jobs.retryFailed('fragile')).toBe(1);
      await expect.poll(async () => (await jobs.get('fragile', 'bad'))?.state, poll).toBe('completed');
      expect(await jobs.failed('fragile', 10)).toEqual([]);
    });

    it('waits until a job is done for good: completed, or failed after its retries; at once when done', async () => {
      const jobs = await queue();
      expect(await jobs.wait('parse', 'never-queued')).toBeNull();
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      jobs.process('parse', async (payload, context) => {
        if (payload.kind === 'broken') throw new Error(`broken on attempt ${context.attempt}`);
        await held;
      });
      await jobs.enqueue('parse', { kind: 'fine' }, { id: 'fine', lane: 't' });
      await jobs.enqueue('parse', { kind: 'broken' }, { id: 'broken', lane: 't' });
      // Two callers (two replicas) wait for the same job.
      const waiting = [jobs.wait('parse', 'fine'), jobs.wait('parse', 'fine')];
      const failing = jobs.wait('parse', 'broken');
      const settledEarly = await Promise.race([
        Promise.all(waiting).then(() => 'settled'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 300)),
      ]);
      expect(settledEarly).toBe('still waiting');
      release();
      for (const info of await Promise.all(waiting)) {
        expect(info).toMatchObject({ id: 'fine', state: 'completed', payload: { kind: 'fine' }, starts: 1 });
      }
      // Retries are waited through: the wait ends with the last attempt's failure.
      expect(await failing).toMatchObject({ state: 'failed', starts: 3, error: 'broken on attempt 3' });
      expect(await jobs.wait('parse', 'fine')).toMatchObject({ state: 'completed' });
    });

    it('stops waiting when the waiter’s signal aborts; the job goes on', async () => {
      const jobs = await queue();
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      jobs.process('parse', async () => held);
      await jobs.enqueue('parse', {}, { id: 'doc', lane: 't' });
      const controller = new AbortController();
      const waiting = jobs.wait('parse', 'doc', { signal: controller.signal });
      controller.abort(new Error('client went away'));
      await expect(waiting).rejects.toThrow('client went away');
      const aborted = AbortSignal.abort(new Error('already gone'));
      await expect(jobs.wait('parse', 'doc', { signal: aborted })).rejects.toThrow('already gone');
      release();
      expect(await jobs.wait('parse', 'doc')).toMatchObject({ state: 'completed', starts: 1 });
    });

    it('runs up to `concurrency` jobs at once', async () => {
      const jobs = await queue();
      let active = 0;
      let most = 0;
      let done = 0;
      jobs.process(
        'slow',
        async () => {
          active += 1;
          most = Math.max(most, active);
          await new Promise((resolve) => setTimeout(resolve, 300));
          active -= 1;
          done += 1;
        },
        { concurrency: 2 },
      );
      for (const id of ['x', 'y', 'z']) await jobs.enqueue('slow', {}, { id, lane: id });
      await expect.poll(() => done, poll).toBe(3);
      expect(most).toBe(2);
    });
  });
}
