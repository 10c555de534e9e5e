import { describe, expect, it } from 'vitest';
import type { IndexStats } from '../../ports/paper-index.js';
import { readDeploymentStatus } from './deployment-status.js';

const model = 'onnx:test';

/** An index whose stats follow a script, one entry per call (the last repeats). */
function scriptedIndex(script: IndexStats[]) {
  const calls: Array<string | undefined> = [];
  return {
    calls,
    async stats(vectorModel?: string) {
      calls.push(vectorModel);
      return (script.length > 1 ? script.shift() : script[0]) as IndexStats;
    },
  };
}

describe('readDeploymentStatus', () => {
  it('watches a draining backlog for the sample and tells its pace and finishing time', async () => {
    let clock = 1_000;
    const index = scriptedIndex([
      { records: 500, vectors: { model, stored: 100, pending: 400 } },
      { records: 500, vectors: { model, stored: 140, pending: 360 } },
    ]);
    const slept: number[] = [];
    const status = await readDeploymentStatus({
      index,
      projects: { storageByTenant: async () => [{ tenantId: 'lab', documents: 2, bytes: 2048 }] },
      jobs: {
        queue: {
          counts: async (types) => types.map((type) => ({ type, state: 'waiting' as const, count: 1 })),
        },
        types: ['parse-pdf'],
      },
      vectorModel: model,
      sampleMs: 4_000,
      now: () => clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock += ms;
      },
    });
    expect(slept).toEqual([4_000]);
    expect(index.calls).toEqual([model, model]);
    expect(status).toEqual({
      index: { records: 500 },
      vectors: { model, stored: 140, pending: 360, drainPerSecond: 10, etaSeconds: 36, sampledSeconds: 4 },
      jobs: [{ type: 'parse-pdf', state: 'waiting', count: 1 }],
      storage: [{ tenantId: 'lab', documents: 2, bytes: 2048 }],
    });
  });

  it('does not wait when nothing is pending, and has no vectors or jobs when they are off', async () => {
    const done = await readDeploymentStatus({
      index: scriptedIndex([{ records: 7, vectors: { model, stored: 7, pending: 0 } }]),
      projects: { storageByTenant: async () => [] },
      vectorModel: model,
      sampleMs: 60_000,
      sleep: async () => {
        throw new Error('should not wait');
      },
    });
    expect(done.vectors).toMatchObject({ pending: 0, etaSeconds: 0, drainPerSecond: undefined });
    expect(done.jobs).toBeUndefined();
    const off = await readDeploymentStatus({
      index: scriptedIndex([{ records: 7 }]),
      projects: { storageByTenant: async () => [] },
      sampleMs: 5_000,
    });
    expect(off).toEqual({ index: { records: 7 }, jobs: undefined, storage: [] });
  });
});
