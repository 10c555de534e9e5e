import { UpstreamError } from '../../domain/errors.js';
import type { SourceReport } from '../../domain/search.js';
import { reportCall } from './source-monitor.js';

/** One call of a fan-out: a named provider (the local index or a source). */
export interface FanOutCall<T> {
  name: string;
  /** Local calls are bounded by the deadline only, not by the per-source timeout. */
  local?: boolean;
  run(signal: AbortSignal): Promise<T>;
}

/** What one call of a fan-out gave: its value (null when it failed) and its report. */
export interface FanOutOutcome<T> {
  call: FanOutCall<T>;
  value: T | null;
  report: SourceReport;
  /** Why the call failed, when it did. */
  error?: unknown;
}

export interface FanOutLimits {
  deadlineMs: number;
  sourceTimeoutMs: number;
}

/**
 * Runs every call at once; each source is bounded by its timeout and all by the deadline (and the
 * caller's signal). A provider that ignores its signal is still not waited for. The deadline bounds
 * the answer, not just the wait: waiting stops a little early (`mergeReserveMs`) so merging,
 * ranking and writing the response fit before it. Never throws: each outcome carries a value or
 * null and a report (and, when the call failed, its error).
 */
export async function fanOut<T>(
  calls: ReadonlyArray<FanOutCall<T>>,
  limits: FanOutLimits,
  signal: AbortSignal | undefined,
  count: (value: T) => number,
): Promise<Array<FanOutOutcome<T>>> {
  const deadline = AbortSignal.timeout(Math.max(1, limits.deadlineMs - mergeReserveMs(limits.deadlineMs)));
  const overall = signal ? AbortSignal.any([signal, deadline]) : deadline;
  return Promise.all(
    calls.map(async (call) => {
      const bounded = call.local
        ? overall
        : AbortSignal.any([overall, AbortSignal.timeout(limits.sourceTimeoutMs)]);
      const outcome = await reportCall(
        call.name,
        () => unlessAborted(call.name, bounded, (inner) => call.run(inner)),
        count,
      );
      return { call, ...outcome };
    }),
  );
}

/** Time kept back from the deadline for the work after the fan-out: 5% of it, at most 50 ms. */
function mergeReserveMs(deadlineMs: number): number {
  return Math.min(50, Math.floor(deadlineMs * 0.05));
}

/**
 * `run(signal)`, or a timeout/cancel error as soon as `signal` aborts (a provider that ignores its
 * signal is not waited for). The abort listener is removed when the call settles: left on the
 * composite signal, it would keep the signal and this call's results alive for good (Node keeps a
 * composite signal with an abort listener reachable until it aborts, and one whose timeouts were
 * collected never does).
 */
async function unlessAborted<T>(
  source: string,
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  let fail: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    fail = () => {
      const reason = signal.reason as { name?: string } | undefined;
      const what = reason?.name === 'TimeoutError' ? 'did not answer in time' : 'was cancelled';
      reject(new UpstreamError(source, `${source} ${what}`, { code: 'timeout', retryable: false }));
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  try {
    return await Promise.race([run(signal), aborted]);
  } finally {
    if (fail) signal.removeEventListener('abort', fail);
  }
}
