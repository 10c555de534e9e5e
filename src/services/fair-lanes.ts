/**
 * The turn order of heavy work shared between tenants: each tenant has a lane (first come, first
 * served within it) and lanes take turns. The next item comes from the lane with the fewest items
 * running, and among those from the one that has waited longest: a lane goes to the back when an item
 * of it starts, and again when one finishes, so a lane that turns up while another's work runs goes
 * ahead of it. With one item running at a time this is plain round robin in which the running lane
 * rejoins after its work is done; with several it also shares the slots (a tenant with four parses
 * on two threads gets the next free thread only when nobody else waits).
 *
 * Only the order: what runs and how many at once is the caller's (`FairEmbeddingQueue`, one model
 * slice at a time; `FairSlots` below, N at once).
 */
export class FairLanes<T> {
  /** Lanes with waiting items, in turn order (the map's order). */
  private readonly waitingLanes = new Map<string, T[]>();
  /** Items taken from each lane and not yet done. */
  private readonly runningLanes = new Map<string, number>();

  /** Items waiting, counted once per lane they wait in. */
  get waiting(): number {
    let count = 0;
    for (const items of this.waitingLanes.values()) count += items.length;
    return count;
  }

  /** Lanes with items waiting. */
  get lanes(): number {
    return this.waitingLanes.size;
  }

  /** Items taken and not yet done. */
  get running(): number {
    let count = 0;
    for (const running of this.runningLanes.values()) count += running;
    return count;
  }

  /** Queues `item` at the end of `lane` (a new lane joins the turn order at the back). */
  push(lane: string, item: T): void {
    const items = this.waitingLanes.get(lane);
    if (items) items.push(item);
    else this.waitingLanes.set(lane, [item]);
  }

  /** Removes a waiting item from every lane it waits in; false when it waited nowhere. */
  remove(item: T): boolean {
    let removed = false;
    for (const [lane, items] of this.waitingLanes) {
      const at = items.indexOf(item);
      if (at < 0) continue;
      items.splice(at, 1);
      removed = true;
      if (items.length === 0) this.waitingLanes.delete(lane);
    }
    return removed;
  }

  /**
   * Takes the item whose turn it is, or undefined when nothing waits. The caller reports `done(lane)`
   * when the work ends. `usedUp(item)` false leaves the item at the head of its lane, for work done in
   * several turns (a document embedded slice by slice).
   */
  take(usedUp: (item: T) => boolean = () => true): { lane: string; item: T } | undefined {
    let chosen: string | undefined;
    let fewest = Number.POSITIVE_INFINITY;
    for (const lane of this.waitingLanes.keys()) {
      const running = this.runningLanes.get(lane) ?? 0;
      if (running < fewest) {
        chosen = lane;
        fewest = running;
        if (running === 0) break;
      }
    }
    if (chosen === undefined) return undefined;
    const items = this.waitingLanes.get(chosen) as T[];
    const item = items[0] as T;
    this.waitingLanes.delete(chosen);
    if (usedUp(item)) items.shift();
    // To the back of the turn order.
    if (items.length > 0) this.waitingLanes.set(chosen, items);
    this.runningLanes.set(chosen, fewest + 1);
    return { lane: chosen, item };
  }

  /** Work taken from `lane` has ended: the lane rejoins the turn order at the back. */
  done(lane: string): void {
    const running = (this.runningLanes.get(lane) ?? 1) - 1;
    if (running > 0) this.runningLanes.set(lane, running);
    else this.runningLanes.delete(lane);
    const items = this.waitingLanes.get(lane);
    if (items) {
      this.waitingLanes.delete(lane);
      this.waitingLanes.set(lane, items);
    }
  }
}

export interface FairSlotsRunOptions {
  /**
   * Work with the same key is done once: a caller with a key that is waiting or running shares it,
   * and its lane is added to the waiting work's lanes (the work starts at the first of their turns).
   */
  key?: string | undefined;
  /**
   * The caller stops waiting when it fires. Work nobody waits for any more leaves its lanes before it
   * starts; work that has started runs on (others may share it, and its result may be kept).
   */
  signal?: AbortSignal | undefined;
  /**
   * Longest the caller waits for the work to start, in ms; past it the caller is refused with
   * `waitedTooLong()` (the work leaves the lanes when nobody else waits for it). Work that has
   * started is waited for however long it takes.
   */
  maxWaitMs?: number | undefined;
  /** The error a caller that waited `maxWaitMs` gets (default: a plain Error). */
  waitedTooLong?: (() => unknown) | undefined;
}

interface Caller {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Refuses the caller when the work has not started within `maxWaitMs`. */
  waitTimer: NodeJS.Timeout | undefined;
}

interface Work {
  key: string | undefined;
  run: () => Promise<unknown>;
  /** The lanes it waits in (one per tenant that asked for it before it started). */
  lanes: Set<string>;
  callers: Set<Caller>;
  started: boolean;
}

/**
 * Runs work at most `limit` at a time, in the fair turn order of `FairLanes`: whenever a slot frees
 * up the next lane in turn starts its oldest work. Work beyond a lane's turns waits in its lane. Fair
 * within this process only.
 */
export class FairSlots {
  private readonly lanes = new FairLanes<Work>();
  private readonly keyed = new Map<string, Work>();
  private readonly pending = new Set<Work>();
  private readonly limit: number;
  private active = 0;
  /** Moving average of how long work runs, in ms (for the wait a new caller may expect). */
  private averageRunMs: number | undefined;

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Work waiting for a slot, lanes it waits in, and work running; for tests and metrics. */
  get size(): { waiting: number; lanes: number; running: number } {
    return { waiting: this.pending.size, lanes: this.lanes.lanes, running: this.active };
  }

  /** Moving average of how long one piece of work has run, in ms (undefined before any ended). */
  get typicalRunMs(): number | undefined {
    return this.averageRunMs;
  }

  /**
   * About how long a caller arriving now would wait for a slot, in ms: the average run time of
   * the work so far times the rounds of work ahead of it (0 while a slot is free). An estimate for
   * `Retry-After`, not a promise.
   */
  expectedWaitMs(): number {
    if (this.active < this.limit) return 0;
    const rounds = Math.floor(this.pending.size / this.limit) + 1;
    return Math.round((this.averageRunMs ?? 1000) * rounds);
  }

  /** Runs `run` in `lane`'s turn once a slot is free; see `FairSlotsRunOptions` for sharing, aborts and waits. */
  run<T>(lane: string, run: () => Promise<T>, options: FairSlotsRunOptions = {}): Promise<T> {
    const { key, signal, maxWaitMs } = options;
    signal?.throwIfAborted();
    let work = key === undefined ? undefined : this.keyed.get(key);
    if (!work) {
      work = { key, run, lanes: new Set([lane]), callers: new Set(), started: false };
      if (key !== undefined) this.keyed.set(key, work);
      this.pending.add(work);
      this.lanes.push(lane, work);
    } else if (!work.started && !work.lanes.has(lane)) {
      work.lanes.add(lane);
      this.lanes.push(lane, work);
    }
    const shared = work;
    const result = new Promise<T>((resolve, reject) => {
      const caller: Caller = {
        resolve: resolve as (value: unknown) => void,
        reject,
        signal,
        onAbort: undefined,
        waitTimer: undefined,
      };
      const leave = (reason: unknown) => {
        clearTimeout(caller.waitTimer);
        if (caller.onAbort) signal?.removeEventListener('abort', caller.onAbort);
        shared.callers.delete(caller);
        reject(reason);
        if (!shared.started && shared.callers.size === 0) {
          this.lanes.remove(shared);
          this.pending.delete(shared);
          if (shared.key !== undefined && this.keyed.get(shared.key) === shared)
            this.keyed.delete(shared.key);
        }
      };
      if (signal) {
        caller.onAbort = () => leave(signal.reason);
        signal.addEventListener('abort', caller.onAbort, { once: true });
      }
      if (maxWaitMs !== undefined && !shared.started) {
        caller.waitTimer = setTimeout(
          () => leave(options.waitedTooLong?.() ?? new Error(`waited more than ${maxWaitMs} ms for a slot`)),
          maxWaitMs,
        );
        caller.waitTimer.unref?.();
      }
      shared.callers.add(caller);
    });
    this.pump();
    return result;
  }

  private pump(): void {
    while (this.active < this.limit) {
      const next = this.lanes.take();
      if (!next) return;
      const { lane, item: work } = next;
      // It may also wait in other lanes (callers of several tenants): it starts once.
      this.lanes.remove(work);
      work.started = true;
      this.pending.delete(work);
      for (const caller of work.callers) clearTimeout(caller.waitTimer);
      this.active += 1;
      const startedAt = performance.now();
      Promise.resolve()
        .then(work.run)
        .then(
          (value) => this.settle(work, (caller) => caller.resolve(value)),
          (error: unknown) => this.settle(work, (caller) => caller.reject(error)),
        )
        .finally(() => {
          const ranMs = performance.now() - startedAt;
          this.averageRunMs = this.averageRunMs === undefined ? ranMs : 0.8 * this.averageRunMs + 0.2 * ranMs;
          this.active -= 1;
          this.lanes.done(lane);
          this.pump();
        });
    }
  }

  private settle(work: Work, answer: (caller: Caller) => void): void {
    // Forgotten before anyone is answered, so a later caller starts fresh work.
    if (work.key !== undefined && this.keyed.get(work.key) === work) this.keyed.delete(work.key);
    for (const caller of work.callers) {
      if (caller.onAbort) caller.signal?.removeEventListener('abort', caller.onAbort);
      answer(caller);
    }
    work.callers.clear();
  }
}
