// Goal of decision 0046: no job ends failed because of an outage shorter than 5 minutes. The
// default policy is run on the in-process queue under fake timers: a dependency out for 5 minutes
// (every run fails with `unavailable`), then back; and a job whose own failure lasts as long.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../domain/errors.js';
import { MemoryJobQueue } from '../memory/memory-job-queue.js';
import { backoffDelay, defaultJobRetryPolicy, retryDelay } from './job-retry-policy.js';

afterEach(() => {
  vi.useRealTimers();
});

async function runFor(ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += 1_000) await vi.advanceTimersByTimeAsync(1_000);
}

describe('the default job retry policy', () => {
  it('carries a job through a 5-minute outage, running it again within 30 s of the return', async () => {
    vi.useFakeTimers();
    const start = Date.now();
    const outageEnds = start + 5 * 60_000;
    const runs: number[] = [];
    const jobs = new MemoryJobQueue();
    jobs.process('needs-database', async () => {
      runs.push(Date.now());
      if (Date.now() < outageEnds) throw new AppError('unavailable', 'The database is unavailable right now');
    });
    await jobs.enqueue('needs-database', {}, { id: 'a', lane: 't' });
    await runFor(5 * 60_000 + 31_000);
    expect((await jobs.get('needs-database', 'a'))?.state).toBe('completed');
    expect((runs.at(-1) as number) - outageEnds).toBeLessThanOrEqual(30_000);
    // Backed off, not hammering: a run every 30 s at most once the waits reached their cap.
    expect(runs.length).toBeLessThan(25);
    await jobs.close();
  });

  it('gives a failure of the job’s own about four minutes of retries before it counts as failed', async () => {
    vi.useFakeTimers();
    const jobs = new MemoryJobQueue();
    let runs = 0;
    jobs.process('broken', async () => {
      runs += 1;
      throw new Error('cannot read these bytes');
    });
    await jobs.enqueue('broken', {}, { id: 'b', lane: 't' });
    await runFor(3 * 60_000);
    expect((await jobs.get('broken', 'b'))?.state).not.toBe('failed');
    await runFor(2 * 60_000);
    expect((await jobs.get('broken', 'b'))?.state).toBe('failed');
    expect(runs).toBe(defaultJobRetryPolicy.attempts);
    await jobs.close();
  });

  it('doubles its waits up to the cap, with at most a quarter of jitter', () => {
    expect([1, 2, 3].map((failures) => retryDelay(defaultJobRetryPolicy, failures, () => 1))).toEqual([
      2_000, 4_000, 8_000,
    ]);
    expect(retryDelay(defaultJobRetryPolicy, 30, () => 1)).toBe(300_000);
    expect(backoffDelay(1, 1_000, 30_000, () => 0)).toBe(750);
  });
});
