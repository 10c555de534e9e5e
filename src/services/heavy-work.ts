import { AppError } from '../domain/errors.js';
import type { ConcurrencyLimiter } from '../ports/concurrency-limiter.js';
import { FairSlots } from './fair-lanes.js';
import { type HeldPlace, TenantShare } from './tenant-share.js';

export interface HeavyWorkOptions {
  /**
   * Heavy requests this process runs at once (its CPU); more wait in their tenant's lane and lanes
   * take turns (`FairSlots`, decision 0018). Per process: each replica has its own cores.
   */
  slots: number;
  /**
   * Heavy requests one tenant may have running or waiting at once, counted by `places` (across
   * replicas with Redis). One more is refused with 429 and Retry-After.
   */
  perTenant: number;
  /** Longest a request waits for a slot, in ms; past it the service is busy: 503 and Retry-After. */
  queueMs: number;
  /**
   * Time budget of one request once it runs, in ms: past it its work is stopped (its signal aborts)
   * and the caller gets 504 at once. Undefined: no budget (the work bounds itself).
   */
  timeoutMs?: number | undefined;
  /** Where tenants' places are counted. */
  places: ConcurrencyLimiter;
  /** Key prefix of the tenants' places: budgets with other names count apart. */
  name: string;
  /** The setting that raises each limit, named in the error messages. */
  settings?: { perTenant?: string; queueMs?: string; timeoutMs?: string };
  /** Told when the places cannot be counted (Redis down): requests then go ahead unmetered. */
  onPlacesError?: ((error: unknown) => void) | undefined;
  /** Told when a request is refused or stopped (metrics). */
  onRefused?: (reason: 'tenant' | 'busy' | 'timeout', operation: string) => void;
}

export interface HeavyRunOptions {
  /** The request's own signal (the client went away): stops the wait and the work. */
  signal?: AbortSignal | undefined;
  /**
   * Whether the work keeps what it did when stopped, so that asking again goes on from there; the
   * time-budget error says so (and carries Retry-After: 1).
   */
  resumable?: boolean;
  /** What the caller can do instead, added to the time-budget error of work that is not resumable. */
  stoppedHint?: string;
}

/**
 * The price of heavy work (reference checking, citation contexts, analyses, parsing; decision
 * 0042): a tenant holds at most `perTenant` places at once (429 past it), the process runs at most
 * `slots` at once in fair turns between tenants and makes a request wait at most `queueMs` (503
 * past it), and a request that runs longer than `timeoutMs` is stopped (504). The work gets a
 * signal that aborts at its budget or when the client goes away; its slot and its place are held
 * until it has actually stopped, so stopped work that is still unwinding is counted.
 */
export class HeavyWork {
  private readonly slots: FairSlots;
  private readonly share: TenantShare;

  constructor(private readonly options: HeavyWorkOptions) {
    this.slots = new FairSlots(options.slots);
    this.share = new TenantShare({
      places: options.places,
      perTenant: options.perTenant,
      name: options.name,
      what: 'heavy requests (reference checks, citation contexts, project graphs, analyses)',
      setting: options.settings?.perTenant,
      typicalRunMs: () => this.slots.typicalRunMs,
      onError: options.onPlacesError,
    });
  }

  /** Requests waiting for a slot, lanes they wait in, and requests running; for tests and metrics. */
  get size(): { waiting: number; lanes: number; running: number } {
    return this.slots.size;
  }

  /**
   * Runs `work` for `tenantId` within the budget; `operation` names it in errors
   * (`verify_references`). Refusals are AppErrors: `rate_limited` (429) when the tenant holds all
   * its places, `overloaded` (503) when no slot came free in time, `timeout` (504) past the time
   * budget; all with `retryAfterSeconds`.
   */
  async run<T>(
    operation: string,
    tenantId: string,
    work: (signal: AbortSignal) => Promise<T>,
    options: HeavyRunOptions = {},
  ): Promise<T> {
    options.signal?.throwIfAborted();
    let release: HeldPlace;
    try {
      release = await this.share.take(operation, tenantId);
    } catch (error) {
      this.options.onRefused?.('tenant', operation);
      throw error;
    }
    let started = false;
    return new Promise<T>((resolve, reject) => {
      const inSlot = async () => {
        started = true;
        try {
          await this.within(operation, work, options, resolve, reject);
        } finally {
          release();
        }
      };
      // An abort that came while the place was taken rejects here, not by throwing.
      Promise.resolve()
        .then(() =>
          this.slots.run(tenantId, inSlot, {
            signal: options.signal,
            maxWaitMs: this.options.queueMs,
            waitedTooLong: () => {
              this.options.onRefused?.('busy', operation);
              return this.busyRefusal(operation);
            },
          }),
        )
        .catch((error: unknown) => {
          // Refused or aborted while waiting: the place goes back now. (Once started, it goes back
          // when the work has stopped.)
          if (!started) release();
          reject(error);
        });
    });
  }

  /**
   * Runs the work in its slot: answers the caller at the work's end, or at once at the time budget
   * (the slot is held until the work has stopped).
   */
  private async within<T>(
    operation: string,
    work: (signal: AbortSignal) => Promise<T>,
    options: HeavyRunOptions,
    resolve: (value: T) => void,
    reject: (error: unknown) => void,
  ): Promise<void> {
    const budget = new AbortController();
    const { timeoutMs } = this.options;
    const timeout = () => {
      this.options.onRefused?.('timeout', operation);
      const error = this.timeoutError(operation, options);
      budget.abort(error);
      reject(error);
    };
    const timer = timeoutMs === undefined ? undefined : setTimeout(timeout, timeoutMs);
    const signal = options.signal ? AbortSignal.any([budget.signal, options.signal]) : budget.signal;
    try {
      resolve(await work(signal));
    } catch (error) {
      reject(budget.signal.aborted ? budget.signal.reason : error);
    } finally {
      clearTimeout(timer);
    }
  }

  private busyRefusal(operation: string): AppError {
    const { queueMs, settings } = this.options;
    return new AppError(
      'overloaded',
      `${operation}: the service is busy with other heavy requests and none of its slots came free within ${seconds(queueMs)} s${settings?.queueMs ? ` (${settings.queueMs})` : ''}; try again shortly.`,
      { retryAfterSeconds: Math.max(1, Math.ceil(this.slots.expectedWaitMs() / 1000)) },
    );
  }

  private timeoutError(operation: string, options: HeavyRunOptions): AppError {
    const { timeoutMs, settings } = this.options;
    const next = options.resumable
      ? ' What it did is kept: asking again goes on where it stopped.'
      : options.stoppedHint
        ? ` ${options.stoppedHint}`
        : '';
    return new AppError(
      'timeout',
      `${operation} ran past its time budget of ${seconds(timeoutMs ?? 0)} s${settings?.timeoutMs ? ` (${settings.timeoutMs})` : ''} and was stopped.${next}`,
      options.resumable ? { retryAfterSeconds: 1 } : {},
    );
  }
}

/** Milliseconds as seconds for a message: whole past 10 s, else to the hundredth. */
function seconds(ms: number): number {
  return ms >= 10_000 ? Math.round(ms / 1000) : Number((ms / 1000).toFixed(2));
}
