// With S3 stopped every replica answered /readyz 503 while searches, full text, questions and chat
// all answered 200: a balancer would have drained the whole fleet. Readiness now answers for the
// role: a dependency needed only for writes degrades a replica, it does not unready it.
import { describe, expect, it } from 'vitest';
import { AppError } from '../domain/errors.js';
import type { ReadinessProbe } from '../services/services.js';
import { readinessOf } from './readiness.js';

const ok = (name: string, neededFor?: ReadinessProbe['neededFor']): ReadinessProbe => ({
  name,
  check: async () => undefined,
  ...(neededFor ? { neededFor } : {}),
});
const down = (name: string, neededFor?: ReadinessProbe['neededFor']): ReadinessProbe => ({
  name,
  check: async () => {
    throw new AppError('unavailable', `${name} refused the connection`);
  },
  ...(neededFor ? { neededFor } : {}),
});

describe('readiness for the role', () => {
  it('is ready when every probe answers', async () => {
    expect(await readinessOf([ok('project_store'), ok('blob_store', ['writes', 'jobs'])], 'api')).toEqual({
      status: 'ready',
      role: 'api',
      checks: { project_store: 'ok', blob_store: 'ok' },
    });
  });

  it('keeps a replica ready, degraded, when only the blob store is down, and says why', async () => {
    const readiness = await readinessOf(
      [ok('project_store'), ok('paper_index', ['reads', 'jobs']), down('blob_store', ['writes', 'jobs'])],
      'api',
    );
    expect(readiness.status).toBe('degraded');
    expect(readiness.reason).toBe('blob_store: blob_store refused the connection (needed for writes, jobs)');
  });

  it('unreadies a worker when the blob store its jobs need is down, and anyone when the database is', async () => {
    const probes = [ok('project_store'), down('blob_store', ['writes', 'jobs'])];
    expect((await readinessOf(probes, 'worker')).status).toBe('unavailable');
    expect((await readinessOf([down('project_store')], 'all')).status).toBe('unavailable');
  });

  it('counts a probe that hangs as failed within its timeout', async () => {
    const hung: ReadinessProbe = { name: 'redis', check: () => new Promise(() => {}), neededFor: ['jobs'] };
    const started = Date.now();
    const readiness = await readinessOf([hung], 'api');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(readiness).toMatchObject({ status: 'degraded', checks: { redis: 'no answer within 2000 ms' } });
  });
});
