import { AppError } from '../../domain/errors.js';

/**
 * When a failed job runs again (docs/decisions/0046). Two kinds of failure are told apart:
 *
 * - a failure of the job's own (a bug, bytes that cannot be read): retried `attempts` times in all,
 *   waiting `retryDelayMs`, doubled each time up to `maxRetryDelayMs` (2 s, 4 s, … 128 s by
 *   default: about four minutes before the job counts as failed);
 * - an outage of a dependency (the handler threw an `AppError` with code `unavailable`: PostgreSQL
 *   restarting, the blob store down): the job is put back to wait — `outageDelayMs` (1 s), doubled, at most
 *   `maxOutageDelayMs` — without spending an attempt, for up to `outagePatienceMs` of outages, so
 *   it runs again soon after the dependency returns instead of failing for good.
 */
export interface JobRetryPolicy {
  attempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  outagePatienceMs: number;
  outageDelayMs: number;
  maxOutageDelayMs: number;
}

export const defaultJobRetryPolicy: JobRetryPolicy = {
  attempts: 8,
  retryDelayMs: 2_000,
  maxRetryDelayMs: 300_000,
  outagePatienceMs: 3_600_000,
  outageDelayMs: 1_000,
  maxOutageDelayMs: 30_000,
};

/** Whether a job failed because a dependency is out (retried without spending an attempt). */
export function isOutageFailure(error: unknown): boolean {
  return error instanceof AppError && error.code === 'unavailable';
}

/**
 * Milliseconds before run number `failures + 1`, after `failures` failures: doubling from `first`,
 * capped at `max`, with jitter (75–100 % of that) so that jobs failed together do not return together.
 */
export function backoffDelay(
  failures: number,
  first: number,
  max: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(max, first * 2 ** Math.max(0, failures - 1));
  return Math.round(full * (0.75 + 0.25 * random()));
}

/** The wait after the `failures`-th failure of the job's own. */
export function retryDelay(policy: JobRetryPolicy, failures: number, random?: () => number): number {
  return backoffDelay(failures, policy.retryDelayMs, policy.maxRetryDelayMs, random);
}

/** The wait after the `outages`-th outage in a row. */
export function outageDelay(policy: JobRetryPolicy, outages: number, random?: () => number): number {
  return backoffDelay(outages, policy.outageDelayMs, policy.maxOutageDelayMs, random);
}

/** The policy with `options`' numbers where given, the defaults elsewhere. */
export function retryPolicyOf(options: Partial<JobRetryPolicy>): JobRetryPolicy {
  const given = Object.entries(options).filter(
    ([key, value]) => key in defaultJobRetryPolicy && typeof value === 'number',
  );
  return { ...defaultJobRetryPolicy, ...Object.fromEntries(given) };
}
