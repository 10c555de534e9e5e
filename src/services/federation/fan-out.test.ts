import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { type FanOutCall, fanOut } from './fan-out.js';

const limits = { deadlineMs: 60_000, sourceTimeoutMs: 30_000 };

describe('fanOut', () => {
  it('does not wait for a source that ignores its signal past its timeout', async () => {
    const calls: Array<FanOutCall<string[]>> = [
      { name: 'local', local: true, run: async () => ['a'] },
      { name: 'stuck', run: () => new Promise(() => {}) },
    ];
    const outcomes = await fanOut(
      calls,
      { deadlineMs: 5_000, sourceTimeoutMs: 30 },
      undefined,
      (v) => v.length,
    );
    expect(outcomes.map((outcome) => outcome.report.status)).toEqual(['ok', 'timeout']);
    expect(outcomes[1]?.report.message).toBe('stuck did not answer in time');
  });

  // Soak regression (issue 13): each call left its `abort` listener on its composite signal, so Node
  // kept the signal (and the call's promises and results) reachable for as long as the signal never
  // aborted: for good once its timeout signals were collected. Every federated search leaked.
  it('leaves no abort listener on the signals of calls that finished, failed or timed out', async () => {
    const request = new AbortController(); // the caller's signal outlives the search
    const seen: AbortSignal[] = [];
    const recording = (name: string, run: () => Promise<string[]>, local = false): FanOutCall<string[]> => ({
      name,
      local,
      run: (signal) => {
        seen.push(signal);
        return run();
      },
    });
    const calls = [
      recording('local', async () => ['a', 'b'], true),
      recording('ok', async () => ['c']),
      recording('fails', async () => {
        throw new Error('503');
      }),
    ];
    const outcomes = await fanOut(calls, limits, request.signal, (value) => value.length);
    expect(outcomes.map((outcome) => outcome.report.status)).toEqual(['ok', 'ok', 'failed']);
    const timedOut = await fanOut(
      [recording('stuck', () => new Promise(() => {}))],
      { deadlineMs: 5_000, sourceTimeoutMs: 20 },
      request.signal,
      (value) => value.length,
    );
    expect(timedOut[0]?.report.status).toBe('timeout');
    expect(seen).toHaveLength(4);
    for (const signal of seen) expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(request.signal, 'abort')).toHaveLength(0);
  });
});
