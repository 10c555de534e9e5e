import type { z } from 'zod';
import { UpstreamError } from '../../../domain/errors.js';
import { type Logger, redactUrl, secretParamValues, withoutSecretParams } from '../../../platform/logger.js';
import type { Cache } from '../../../ports/cache.js';
import type {
  CircuitBreaker,
  CircuitBreakerOptions,
  CircuitBreakers,
} from '../../../ports/circuit-breaker.js';
import { type Clock, systemClock } from '../../../ports/clock.js';
import { SourceSkippedError } from '../../../ports/paper-source.js';
import type { RateGate, RateGates } from '../../../ports/rate-gate.js';
import { MemoryCircuitBreakers } from '../../memory/memory-circuit-breaker.js';
import { MemoryRateGates } from '../../memory/memory-rate-gate.js';
import { backoffDelay, defaultRetryPolicy, parseRetryAfter, type RetryPolicy } from './retry-policy.js';
import { realSleep, type Sleep } from './sleep.js';

export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

/** Resilience settings of one source; every adapter gets its own client. */
export interface UpstreamClientOptions {
  /** Source name for errors, logs and cache keys. */
  source: string;
  /** The fetch to use (tests inject a recorded or loopback one). Default: global fetch. */
  fetch?: FetchFunction;
  clock?: Clock;
  sleep?: Sleep;
  random?: () => number;
  /** Time limit of one attempt (default 8 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Minimum spacing between request starts (0 = unlimited). */
  minIntervalMs?: number;
  /** Longest a call queues for its rate slot before it is skipped (default: timeoutMs). */
  maxQueueMs?: number;
  breaker?: CircuitBreakerOptions;
  /**
   * Where the source's rate gate and circuit breaker live: Redis when replicas share them (the
   * composition root passes them). Default: this client's own, in memory.
   */
  rateGates?: RateGates;
  breakers?: CircuitBreakers;
  /** Response cache (answers and 404s) and its time-to-live; no caching when absent or 0. */
  cache?: Cache;
  cacheTtlSeconds?: number;
  /** Headers sent with every request (user agent, API key). */
  headers?: Record<string, string>;
  logger?: Pick<Logger, 'warn' | 'debug'>;
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  accept?: string;
  /** Statuses that are answers rather than failures (default: 404). */
  answerStatuses?: number[];
  /** Overrides the client's cache TTL for this request (0 = do not cache). */
  cacheTtlSeconds?: number;
}

const maxBodyBytes = 32 * 1024 * 1024;

/**
 * The one place where upstream HTTP calls get their resilience: response cache, circuit breaker,
 * rate spacing, per-attempt timeout, and retries with exponential backoff + jitter that honour
 * `Retry-After`. Adapters only build URLs and parse bodies.
 */
export class UpstreamClient {
  readonly source: string;
  readonly breaker: CircuitBreaker;
  readonly gate: RateGate;
  private readonly fetchFunction: FetchFunction;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly timeoutMs: number;
  private readonly retry: RetryPolicy;
  private readonly maxQueueMs: number;
  private readonly cache: Cache | undefined;
  private readonly cacheTtlSeconds: number;
  private readonly headers: Record<string, string>;
  private readonly logger: Pick<Logger, 'warn' | 'debug'> | undefined;

  constructor(options: UpstreamClientOptions) {
    this.source = options.source;
    this.fetchFunction = options.fetch ?? ((input, init) => fetch(input, init));
    this.clock = options.clock ?? systemClock;
    this.sleep = options.sleep ?? realSleep;
    this.random = options.random ?? Math.random;
    this.timeoutMs = options.timeoutMs ?? 8_000;
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.maxQueueMs = options.maxQueueMs ?? this.timeoutMs;
    const breakers = options.breakers ?? new MemoryCircuitBreakers(this.clock);
    this.breaker = breakers.breaker(this.source, options.breaker);
    const gates = options.rateGates ?? new MemoryRateGates(this.clock);
    this.gate = gates.gate(this.source, options.minIntervalMs ?? 0);
    this.cache = options.cache;
    this.cacheTtlSeconds = options.cacheTtlSeconds ?? 0;
    this.headers = options.headers ?? {};
    this.logger = options.logger;
  }

  /** GET `url` and validate its JSON body with `schema`; null on 404 (or another answer status). */
  async getJson<S extends z.ZodType>(
    url: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.output<S> | null> {
    const response = await this.get(url, { accept: 'application/json', ...options });
    if (response.status !== 200) return null;
    let data: unknown;
    try {
      data = JSON.parse(response.body);
    } catch {
      await this.forget(url);
      throw new UpstreamError(this.source, `${this.source} answered with invalid JSON`, { retryable: false });
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      await this.forget(url);
      this.logger?.warn(
        { source: this.source, url: redactUrl(url), issues: parsed.error.issues.slice(0, 3) },
        'unexpected upstream shape',
      );
      throw new UpstreamError(this.source, `${this.source} answered in an unexpected shape`, {
        retryable: false,
      });
    }
    return parsed.data;
  }

  /** GET `url` as text; null on 404 (or another answer status). */
  async getText(url: string, options: RequestOptions = {}): Promise<string | null> {
    const response = await this.get(url, options);
    return response.status === 200 ? response.body : null;
  }

  /** GET with cache, breaker, rate gate, timeout and retries. Resolves for 2xx and answer statuses. */
  async get(url: string, options: RequestOptions = {}): Promise<UpstreamResponse> {
    const ttl = options.cacheTtlSeconds ?? this.cacheTtlSeconds;
    const cacheKey = this.cacheKey(url);
    if (this.cache && ttl > 0) {
      const hit = await this.cache.get<UpstreamResponse>(cacheKey);
      if (hit !== undefined) return hit;
    }
    if (!(await this.breaker.tryAcquire())) {
      const { retryInMs } = await this.breaker.status();
      throw new SourceSkippedError(
        this.source,
        'circuit_open',
        `${this.source} is skipped for ${Math.ceil(retryInMs / 1000)} s after repeated failures`,
      );
    }
    let response: UpstreamResponse;
    try {
      response = await this.attempts(url, options);
    } catch (error) {
      if (error instanceof SourceSkippedError || options.signal?.aborted) await this.breaker.release();
      else if (error instanceof UpstreamError && !countsAsFailure(error)) await this.breaker.success();
      else await this.breaker.failure();
      throw error;
    }
    await this.breaker.success();
    if (this.cache && ttl > 0) await this.cache.set(cacheKey, response, ttl);
    return response;
  }

  private async forget(url: string): Promise<void> {
    await this.cache?.delete(this.cacheKey(url));
  }

  /**
   * Responses are keyed by the URL without its secret parameters (an NCBI `api_key`): the answer
   * does not depend on the key, and a key must not sit in a cache key (decision 0042).
   */
  private cacheKey(url: string): string {
    return `upstream:${this.source}:${withoutSecretParams(url)}`;
  }

  private async attempts(url: string, options: RequestOptions): Promise<UpstreamResponse> {
    const answers = options.answerStatuses ?? [404];
    let lastError: UpstreamError | undefined;
    for (let attempt = 1; ; attempt += 1) {
      // A source that failed recently is not waited for: it is skipped unless a slot is free now.
      const { consecutiveFailures } = await this.breaker.status();
      const queueLimit = consecutiveFailures > 0 ? 0 : this.maxQueueMs;
      const slotWaitMs = await this.gate.reserve(queueLimit);
      if (slotWaitMs === null) {
        // A retry that cannot get a rate slot in time ends with the failure it was retrying.
        if (lastError) throw lastError;
        const nextSlotMs = await this.gate.waitMs();
        throw new SourceSkippedError(
          this.source,
          'rate_limited',
          `${this.source} rate budget exhausted (next slot in ${Math.ceil(nextSlotMs / 1000)} s)`,
        );
      }
      if (slotWaitMs > 0) await this.sleep(slotWaitMs, options.signal);
      let error: UpstreamError;
      let waitMs: number | undefined;
      try {
        const response = await this.once(url, options);
        if ((response.status >= 200 && response.status < 300) || answers.includes(response.status)) {
          return response;
        }
        const retryAfterMs = parseRetryAfter(response.retryAfter, this.clock.now());
        error = new UpstreamError(this.source, `${this.source} answered HTTP ${response.status}`, {
          upstreamStatus: response.status,
          ...(retryAfterMs === undefined ? {} : { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) }),
        });
        if (retryAfterMs !== undefined) {
          waitMs = retryAfterMs;
          await this.gate.pushBack(this.clock.now() + retryAfterMs);
        }
      } catch (caught) {
        if (options.signal?.aborted) throw abortError(this.source, options.signal);
        error =
          caught instanceof UpstreamError
            ? caught
            : new UpstreamError(this.source, `${this.source} unreachable: ${describe(caught, url)}`, {
                cause: withoutSecrets(caught, url),
              });
      }
      lastError = error;
      if (!error.retryable || attempt > this.retry.retries) throw error;
      const delay = waitMs ?? backoffDelay(this.retry, attempt, this.random);
      if (delay > this.retry.maxRetryAfterMs) throw error;
      this.logger?.debug(
        { source: this.source, attempt, delayMs: Math.round(delay), status: error.upstreamStatus },
        'retrying upstream call',
      );
      try {
        await this.sleep(delay, options.signal);
      } catch {
        throw abortError(this.source, options.signal);
      }
    }
  }

  private async once(
    url: string,
    options: RequestOptions,
  ): Promise<UpstreamResponse & { retryAfter: string | null }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.fetchFunction(url, {
        method: 'GET',
        headers: { accept: options.accept ?? '*/*', ...this.headers },
        signal,
        redirect: 'follow',
      });
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) throw timeoutError(this.source, this.timeoutMs);
      throw error;
    }
    const length = Number(response.headers.get('content-length') ?? '0');
    if (length > maxBodyBytes) {
      throw new UpstreamError(this.source, `${this.source} response too large (${length} bytes)`, {
        retryable: false,
      });
    }
    let body: string;
    try {
      body = await response.text();
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) throw timeoutError(this.source, this.timeoutMs);
      throw error;
    }
    return { status: response.status, body, retryAfter: response.headers.get('retry-after') };
  }
}

/** 400/401/403/… say nothing about the source's health except 401/403 (bad key): those count. */
function countsAsFailure(error: UpstreamError): boolean {
  if (error.retryable) return true;
  const status = error.upstreamStatus;
  return status === 401 || status === 403 || status === undefined;
}

function timeoutError(source: string, timeoutMs: number): UpstreamError {
  return new UpstreamError(source, `${source} did not answer within ${timeoutMs} ms`, {
    code: 'timeout',
    retryable: true,
  });
}

function abortError(source: string, signal: AbortSignal | undefined): UpstreamError {
  const reason = signal?.reason;
  const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
  return new UpstreamError(source, `${source} call ${timedOut ? 'ran out of time' : 'was cancelled'}`, {
    code: 'timeout',
    retryable: false,
  });
}

/** A failed fetch in words, without the secret parameters of `url` (some errors quote the URL). */
function describe(error: unknown, url: string): string {
  let text = String(error);
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    text = cause?.code ? `${error.message} (${cause.code})` : error.message;
  }
  return scrub(text, url);
}

/** `text` with the values of `url`'s secret parameters replaced (as written and percent-encoded). */
function scrub(text: string, url: string): string {
  let scrubbed = text;
  for (const secret of secretParamValues(url)) {
    if (!secret) continue;
    scrubbed = scrubbed.replaceAll(secret, '[redacted]').replaceAll(encodeURIComponent(secret), '[redacted]');
  }
  return scrubbed;
}

/**
 * The cause an UpstreamError keeps (the logger prints causes with their stacks): the fetch's own
 * error, or — when `url` carries a secret parameter — a copy whose message and stack do not.
 */
function withoutSecrets(error: unknown, url: string): unknown {
  if (secretParamValues(url).length === 0 || !(error instanceof Error)) return error;
  const copy = new Error(scrub(error.message, url));
  copy.name = error.name;
  copy.stack = scrub(error.stack ?? '', url);
  const code = (error as Error & { cause?: { code?: unknown } }).cause?.code;
  if (code !== undefined) Object.assign(copy, { code });
  return copy;
}
