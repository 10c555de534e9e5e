// A push-to-pull queue of stream events, between a producer that pushes and a reader that iterates.

/** A push-to-pull queue: the turn pushes events, `stream()` yields them as they come. */
export class Channel<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private done = false;
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;

  push(item: T) {
    this.items.push(item);
    this.notify();
  }

  end() {
    this.done = true;
    this.notify();
  }

  fail(error: unknown) {
    this.failed = true;
    this.error = error;
    this.notify();
  }

  private notify() {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.failed) throw this.error;
      if (this.done) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }
}
