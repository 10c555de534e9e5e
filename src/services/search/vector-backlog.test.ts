import { describe, expect, it } from 'vitest';
import { VectorBacklogTrend } from './vector-backlog.js';

const model = 'onnx:test';

describe('VectorBacklogTrend', () => {
  it('knows no rate from one reading, but that an empty backlog is done', () => {
    const trend = new VectorBacklogTrend();
    expect(trend.estimate()).toBeUndefined();
    trend.observe(0, { model, stored: 10, pending: 90 });
    expect(trend.estimate()).toEqual({ pending: 90, drainPerSecond: undefined, etaSeconds: undefined });
    const done = new VectorBacklogTrend();
    done.observe(0, { model, stored: 10, pending: 0 });
    expect(done.estimate()?.etaSeconds).toBe(0);
  });

  it('measures the drain on stored vectors, so records arriving meanwhile do not hide it', () => {
    const trend = new VectorBacklogTrend();
    trend.observe(0, { model, stored: 100, pending: 400 });
    // 10 s later: 50 more stored, but an ingest added 200 records.
    trend.observe(10_000, { model, stored: 150, pending: 550 });
    expect(trend.estimate()).toEqual({ pending: 550, drainPerSecond: 5, etaSeconds: 110 });
  });

  it('reports no finishing time while nothing drains, and looks back only over its window', () => {
    const trend = new VectorBacklogTrend(60_000);
    trend.observe(0, { model, stored: 0, pending: 100 });
    trend.observe(30_000, { model, stored: 60, pending: 40 });
    trend.observe(90_000, { model, stored: 60, pending: 40 });
    trend.observe(150_000, { model, stored: 60, pending: 40 });
    // The readings of 0 s and 30 s are out of the window: no vector stored in the last minute.
    expect(trend.estimate()).toEqual({ pending: 40, drainPerSecond: 0, etaSeconds: undefined });
  });
});
