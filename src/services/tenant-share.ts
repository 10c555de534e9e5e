import { AppError } from '../domain/errors.js';
import type { ConcurrencyLimiter } from '../ports/concurrency-limiter.js';

export interface TenantShareOptions {
  /** Where tenants' places are counted (Redis: across replicas). */
  places: ConcurrencyLimiter;
  /** Places one tenant may hold at once. */
  perTenant: number;
  /** Key prefix of the places (`heavy`, `parse`): shares with other names count apart. */
  name: string;
  /** What the places are for, in the refusal ("heavy requests (…)", "PDF parses"). */
  what: string;
  /** The setting that raises `perTenant`, named in the refusal. */
  setting?: string | undefined;
  /** About how long one piece of work runs, in ms: the refusal's Retry-After (default 1 s). */
  typicalRunMs?: () => number | undefined;
  /** Told when the places cannot be counted (Redis down): the work then goes ahead unmetered. */
  onError?: (error: unknown) => void;
}

/** A place a tenant holds; `release` gives it back (once). */
export type HeldPlace = () => void;

/** A place outlives its holder by at most this long (a killed process); renewed every third of it. */
const placeTtlMs = 60_000;

/**
 * A tenant's share of some heavy work (decision 0042): at most `perTenant` places held at once,
 * counted by a `ConcurrencyLimiter` (shared by replicas with Redis). One more is refused with 429
 * and Retry-After. A place is renewed while held and given back when the work has stopped; a
 * process killed while holding one frees it within a minute.
 */
export class TenantShare {
  constructor(private readonly options: TenantShareOptions) {}

  /** Takes a place for `tenantId`, or throws the 429 refusal naming `operation`. */
  async take(operation: string, tenantId: string): Promise<HeldPlace> {
    const { places, perTenant, name } = this.options;
    const key = `${name}:${tenantId}`;
    let decision: Awaited<ReturnType<ConcurrencyLimiter['acquire']>>;
    try {
      decision = await places.acquire(key, perTenant, placeTtlMs);
    } catch (error) {
      // The count is a price, not a lock: without it the work goes on (the slots still bound it).
      this.options.onError?.(error);
      return () => {};
    }
    if (!decision.granted) throw this.refusal(operation, decision.expiresInMs);
    const place = decision.place;
    const renewal = setInterval(() => {
      places.renew(key, place, placeTtlMs).catch((error: unknown) => this.options.onError?.(error));
    }, placeTtlMs / 3);
    renewal.unref();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      clearInterval(renewal);
      places.release(key, place).catch((error: unknown) => this.options.onError?.(error));
    };
  }

  /** Runs `work` holding a place of `tenantId`'s share (429 when the share is used up). */
  async within<T>(operation: string, tenantId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.take(operation, tenantId);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private refusal(operation: string, expiresInMs: number): AppError {
    const { perTenant, what, setting } = this.options;
    // Places go back when their work ends: its usual length is a better guess than their expiry.
    const waitMs = Math.min(expiresInMs, Math.max(1000, this.options.typicalRunMs?.() ?? 1000));
    return new AppError(
      'rate_limited',
      `${operation}: you already have ${perTenant} ${what} running or waiting${setting ? ` (at most ${perTenant}: ${setting})` : ''}; send this one when one of them has finished.`,
      { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) },
    );
  }
}
