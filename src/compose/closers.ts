import type { Logger } from '../platform/logger.js';

/** What the container opened and must close: an adapter, a worker pool, a timer. */
interface Closable {
  close(): Promise<void> | void;
}

/**
 * The container's close list: each factory's result is added as it is opened, and `closeAll` closes
 * them last opened first (what uses a thing closes before it), logging a failure and going on.
 */
export class Closers {
  private readonly closables: Closable[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds `closable` and returns it, so a factory call can be added where it is made. */
  add<T extends Closable>(closable: T): T {
    this.closables.push(closable);
    return closable;
  }

  async closeAll(): Promise<void> {
    for (const closable of this.closables.splice(0).reverse()) {
      try {
        await closable.close();
      } catch (error) {
        this.logger.warn({ err: error }, 'closing an adapter failed');
      }
    }
  }
}
