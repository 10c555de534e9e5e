/** How failed upstream calls are retried: exponential backoff with jitter, honouring Retry-After. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  retries: number;
  /** First backoff step (default 300 ms); doubles each retry. */
  baseDelayMs: number;
  /** Upper bound of one backoff (default 8 s). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails at once (default 20 s). */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  retries: 2,
  baseDelayMs: 300,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 20_000,
};

/**
 * Backoff before retry number `attempt` (1-based): "equal jitter", half fixed and half random, so
 * that clients that failed together do not retry together.
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Milliseconds a `Retry-After` header asks for: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
