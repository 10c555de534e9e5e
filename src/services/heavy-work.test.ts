import { describe, expect, it } from 'vitest';
import { MemoryConcurrencyLimiter } from '../adapters/memory/memory-concurrency-limiter.js';
import { AppError } from '../domain/errors.js';
import { systemClock } from '../ports/clock.js';
import { HeavyWork, type HeavyWorkOptions } from './heavy-work.js';

/** Work the test ends by hand; it records whether its signal aborted. */
function heldWork() {
  let finish: (value: string) => void = () => {};
  const state = { started: false, aborted: false, settled: false };
  const work = (signal: AbortSignal) => {
    state.started = true;
    return new Promise<string>((resolve) => {
      finish = (value) => {
        state.settled = true;
        resolve(value);
      };
      signal.addEventListener('abort', () => {
        state.aborted = true;
      });
    });
  };
  return { work, state, finish: (value = 'done') => finish(value) };
}

function budget(options: Partial<HeavyWorkOptions> = {}) {
  return new HeavyWork({
    slots: 1,
    perTenant: 2,
    queueMs: 60_000,
    places: new MemoryConcurrencyLimiter(systemClock),
    name: 'heavy',
    ...options,
  });
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('HeavyWork', () => {
  it('refuses a tenant past its share with 429 and Retry-After, while another tenant still gets in', async () => {
    const heavy = budget({ slots: 4, perTenant: 2 });
    const first = heldWork();
    const second = heldWork();
    const running = [
      heavy.run('verify_references', 'a', first.work),
      heavy.run('verify_references', 'a', second.work),
    ];
    const refused = await refusal(heavy.run('verify_references', 'a', heldWork().work));
    expect(refused.code).toBe('rate_limited');
    expect(refused.status).toBe(429);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.message).toMatch(/2 heavy requests/);
    const other = heldWork();
    const theirs = heavy.run('verify_references', 'b', other.work);
    await tick();
    expect(other.state.started).toBe(true);
    first.finish();
    await running[0];
    // A place came back: the tenant may send one more.
    const third = heldWork();
    const again = heavy.run('verify_references', 'a', third.work);
    await tick();
    expect(third.state.started).toBe(true);
    second.finish();
    other.finish();
    third.finish();
    await Promise.all([running[1], theirs, again]);
  });

  it('answers 503 with Retry-After when no slot comes free within the queue time, and forgets the request', async () => {
    const heavy = budget({ slots: 1, perTenant: 5, queueMs: 50 });
    const running = heldWork();
    const first = heavy.run('citation_contexts', 'a', running.work);
    const waiting = heldWork();
    const refused = await refusal(heavy.run('citation_contexts', 'b', waiting.work));
    expect(refused.code).toBe('overloaded');
    expect(refused.status).toBe(503);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(heavy.size.waiting).toBe(0);
    running.finish();
    await first;
    expect(waiting.state.started).toBe(false);
  });

  it('stops work past its time budget: the caller gets 504 at once, the slot is held until the work has stopped', async () => {
    const heavy = budget({ slots: 1, perTenant: 5, timeoutMs: 50 });
    const slow = heldWork();
    const stopped = await refusal(heavy.run('verify_references', 'a', slow.work, { resumable: true }));
    expect(stopped.code).toBe('timeout');
    expect(stopped.status).toBe(504);
    expect(stopped.message).toMatch(/ran past its time budget of 0.05 s and was stopped/);
    expect(stopped.message).toMatch(/asking again goes on/);
    expect(slow.state.aborted).toBe(true);
    // The stopped work has not unwound yet: the next request waits for the slot.
    const next = heldWork();
    const after = heavy.run('verify_references', 'b', next.work);
    await tick();
    expect(next.state.started).toBe(false);
    slow.finish();
    await tick();
    await tick();
    expect(next.state.started).toBe(true);
    next.finish('second');
    await expect(after).resolves.toBe('second');
  });

  it('gives the place back when the caller goes away while waiting', async () => {
    const heavy = budget({ slots: 1, perTenant: 1 });
    const running = heldWork();
    const first = heavy.run('analyze_project', 'a', running.work);
    const client = new AbortController();
    const waiting = heavy.run('analyze_project', 'b', heldWork().work, { signal: client.signal });
    client.abort(new Error('client closed'));
    await expect(waiting).rejects.toThrow('client closed');
    // Tenant b's one place is free again.
    const next = heldWork();
    const queued = heavy.run('analyze_project', 'b', next.work);
    running.finish();
    await first;
    await tick();
    expect(next.state.started).toBe(true);
    next.finish();
    await queued;
  });
});
