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

export interface FanOutLimits {
  deadlineMs: number;
  sourceTimeoutMs: number;
}

/**
 * Runs every call at once; each source is bounded by its timeout and all by the deadline (and the
 * caller's signal). A provider that ignores its signal is still not waited for. The deadline bounds
 * the answer, not just the wait: waiting stops a little early (`mergeReserveMs`) so merging,
 * ranking and writing the response fit before it. Never throws: each outcome carries a value or
 * null and a report.
 */
export async function fanOut<T>(
  calls: ReadonlyArray<FanOutCall<T>>,
  limits: FanOutLimits,
  signal: AbortSignal | undefined,
  count: (value: T) => number,
): Promise<Array<{ call: FanOutCall<T>; value: T | null; report: SourceReport }>> {
  const deadline = AbortSignal.timeout(Math.max(1, limits.deadlineMs - mergeReserveMs(limits.deadlineMs)));
  const overall = signal ? AbortSignal.any([signal, deadline]) : deadline;
  return Promise.all(
    calls.map(async (call) => {
      const bounded = call.local
        ? overall
        : AbortSignal.any([overall, AbortSignal.timeout(limits.sourceTimeoutMs)]);
      const { value, report } = await reportCall(
        call.name,
        () => Promise.race([call.run(bounded), rejectOnAbort(call.name, bounded)]),
        count,
      );
      return { call, value, report };
    }),
  );
}

/** Time kept back from the deadline for the work after the fan-out: 5% of it, at most 50 ms. */
function mergeReserveMs(deadlineMs: number): number {
  return Math.min(50, Math.floor(deadlineMs * 0.05));
}

function rejectOnAbort(source: string, signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => {
      const reason = signal.reason as { name?: string } | undefined;
      const what = reason?.name === 'TimeoutError' ? 'did not answer in time' : 'was cancelled';
      reject(new UpstreamError(source, `${source} ${what}`, { code: 'timeout', retryable: false }));
    };
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
