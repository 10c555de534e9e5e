import type pg from 'pg';
import { isDatabaseOutage } from './postgres-pool.js';

/** How read replicas are chosen, timed and left out (ALEXANDRIA_DATABASE_STANDBY_*). */
export interface StandbyRoutingOptions {
  /** A standby must say how far it has replayed within this many ms (default 1,000). */
  timeoutMs?: number;
  /** A standby that failed or was too slow is left out for this many ms (default 30,000). */
  skipMs?: number;
  /** Told when a standby is left out, with why (for the log). */
  onSkip?: (standby: number, reason: string) => void;
  /** Milliseconds now (tests). */
  now?: () => number;
}

/** The version row every index keeps; a standby is used only when it has replayed the primary's. */
const versionQuery = 'SELECT data_version FROM paper_index_stats';

/**
 * Sends reads to streaming standbys, round robin, when they are caught up, and to the primary
 * otherwise (docs/decisions/0024, 0046). A standby that does not answer its version within the
 * budget (stopped, hung, unreachable) or whose read fails for an outage is skipped for a while and
 * the read goes to the primary: a hung standby costs one read at most one budget, not every search
 * for as long as it hangs.
 */
export class StandbyRouter {
  private next = 0;
  private readonly skippedUntil: number[];
  private readonly timeoutMs: number;
  private readonly skipMs: number;
  private readonly now: () => number;

  constructor(
    private readonly primary: pg.Pool,
    private readonly standbys: readonly pg.Pool[],
    private readonly options: StandbyRoutingOptions = {},
  ) {
    this.skippedUntil = standbys.map(() => 0);
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.skipMs = options.skipMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** Standbys currently left out (for metrics and tests). */
  skipped(): number {
    const now = this.now();
    return this.skippedUntil.filter((until) => until > now).length;
  }

  /**
   * Runs `work` on the pool chosen for this read. When that was a standby and the work fails for an
   * outage, the standby is left out and the work runs again on the primary.
   */
  async read<T>(work: (pool: pg.Pool) => Promise<T>): Promise<{ value: T; pool: pg.Pool }> {
    const pool = await this.pick();
    if (pool === this.primary) return { value: await work(pool), pool };
    try {
      return { value: await work(pool), pool };
    } catch (error) {
      if (!isDatabaseOutage(error)) throw error;
      this.skip(pool, error instanceof Error ? error.message : String(error));
      return { value: await work(this.primary), pool: this.primary };
    }
  }

  /** A caught-up standby that is not left out, or the primary. */
  private async pick(): Promise<pg.Pool> {
    const now = this.now();
    for (let tries = 0; tries < this.standbys.length; tries += 1) {
      const index = (this.next + tries) % this.standbys.length;
      if ((this.skippedUntil[index] ?? 0) > now) continue;
      this.next = index + 1;
      return this.caughtUp(this.standbys[index] as pg.Pool);
    }
    return this.primary;
  }

  private async caughtUp(standby: pg.Pool): Promise<pg.Pool> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.timeoutMs);
    });
    const behind = standby.query<{ data_version: string }>(versionQuery);
    // Settles later (its own connect or read timeout) when the standby hangs; nobody waits for it.
    behind.catch(() => undefined);
    const ahead = this.primary.query<{ data_version: string }>(versionQuery);
    ahead.catch(() => undefined);
    try {
      const answer = await Promise.race([behind, late]);
      if (answer === 'late') {
        this.skip(standby, `no answer within ${this.timeoutMs} ms`);
        return this.primary;
      }
      const primaryVersion = BigInt((await ahead).rows[0]?.data_version ?? 0);
      return BigInt(answer.rows[0]?.data_version ?? -1) >= primaryVersion ? standby : this.primary;
    } catch (error) {
      if (
        isDatabaseOutage(error) &&
        (await behind.then(
          () => false,
          () => true,
        ))
      ) {
        this.skip(standby, error instanceof Error ? error.message : String(error));
      }
      return this.primary;
    } finally {
      clearTimeout(timer);
    }
  }

  private skip(standby: pg.Pool, reason: string): void {
    const index = this.standbys.indexOf(standby);
    if (index < 0) return;
    this.skippedUntil[index] = this.now() + this.skipMs;
    this.options.onSkip?.(index, reason);
  }
}
