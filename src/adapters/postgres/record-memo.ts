import type { Paper } from '../../domain/paper.js';

/**
 * A value derived from a record version (the object itself, not its id), computed once and kept
 * while the record is referenced: what an ingest prepares ahead of the write lock is found again
 * when the batch is staged and written.
 */
export class RecordMemo<T> {
  private readonly values = new WeakMap<Paper, T>();

  constructor(private readonly compute: (paper: Paper) => T) {}

  /** The record's value: the remembered one, else computed now and remembered. */
  of(paper: Paper): T {
    let value = this.values.get(paper);
    if (value === undefined) {
      value = this.compute(paper);
      this.values.set(paper, value);
    }
    return value;
  }

  has(paper: Paper): boolean {
    return this.values.has(paper);
  }

  /** Remembers a value computed elsewhere (on a preparing thread). */
  remember(paper: Paper, value: T): void {
    this.values.set(paper, value);
  }
}
