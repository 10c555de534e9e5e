import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { withDeadline } from './retrieval.js';

/** A full collection (the same trick as the JSON-records test: V8's gc exposed at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** The agent's run signal: the request's signal combined with the run's time limit (as the agents build it). */
function runSignal(request: AbortSignal): AbortSignal {
  return AbortSignal.any([request, AbortSignal.timeout(120_000)]);
}

describe('withDeadline', () => {
  it('returns the result, times out a task that ignores its signal, and follows an aborted parent', async () => {
    const request = new AbortController();
    const parent = runSignal(request.signal);
    await expect(withDeadline(async () => 42, 1000, parent, 'Fast')).resolves.toBe(42);
    await expect(withDeadline(() => new Promise(() => {}), 20, parent, 'Slow')).rejects.toMatchObject({
      code: 'timeout',
      message: 'Slow took longer than 20 ms',
    });
    const pending = withDeadline(() => new Promise(() => {}), 60_000, parent, 'Pending');
    request.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
  });

  // Soak regression (issue 13): every call left an `abort` listener on the run's composite signal;
  // Node keeps such a signal reachable while it has a listener, so each chat request leaked its run
  // signal and everything the listeners' promises held (~0.5 MB/s of heap under the soak's mix).
  it('leaves no abort listener on the run signal after calls that resolve, reject or time out', async () => {
    const parent = runSignal(new AbortController().signal);
    for (let call = 0; call < 20; call += 1) {
      await withDeadline(async () => call, 1000, parent, 'Resolves');
      await withDeadline(
        async () => {
          throw new Error('no');
        },
        1000,
        parent,
        'Rejects',
      ).catch(() => {});
    }
    await withDeadline(() => new Promise(() => {}), 5, parent, 'Times out').catch(() => {});
    expect(getEventListeners(parent, 'abort')).toHaveLength(0);
  });

  it('lets the run signal be garbage-collected once the run is over while the request lives on', async () => {
    const request = new AbortController(); // long-lived, like a keep-alive connection's
    const collected = await (async () => {
      let parent: AbortSignal | undefined = runSignal(request.signal);
      const ref = new WeakRef(parent);
      for (let call = 0; call < 5; call += 1) await withDeadline(async () => call, 1000, parent, 'Search');
      parent = undefined;
      return ref;
    })();
    await sleep(0); // WeakRef targets are kept until the current job ends
    collectGarbage();
    await sleep(0);
    collectGarbage();
    expect(collected.deref()).toBeUndefined();
    expect(request.signal.aborted).toBe(false);
  });
});
