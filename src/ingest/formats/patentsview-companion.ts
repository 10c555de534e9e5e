import type { TsvRow } from './tsv-rows.js';

/** The rows of one patent in a companion table, as column → value maps. */
export type CompanionRows = Record<string, string>[];

/**
 * A companion table of PatentsView (inventors, assignees, abstracts, applications) read alongside
 * the patent table with a merge join. PatentsView publishes every table in the same patent order;
 * patents missing from either side are tolerated by a look-ahead of at most `window` patents, which
 * is also the memory bound. A table in another order loses its rows for the patents out of reach.
 */
export class CompanionTable {
  private readonly queue: { id: string; rows: CompanionRows }[] = [];
  private readonly index = new Map<string, number>();
  private dropped = 0;
  private pending: { id: string; row: Record<string, string> } | null = null;
  private done = false;

  constructor(
    private readonly rows: AsyncIterator<TsvRow>,
    private readonly header: string[],
    private readonly window = 10_000,
  ) {}

  /** The rows of this patent, or [] when the table has none within reach. */
  async take(patentId: string): Promise<CompanionRows> {
    for (;;) {
      const position = this.index.get(patentId);
      if (position !== undefined) {
        // Everything queued before it belongs to patents the patent table does not have: drop it.
        const skip = position - this.dropped;
        const found = this.queue[skip];
        for (const entry of this.queue.splice(0, skip + 1)) this.index.delete(entry.id);
        this.dropped = position + 1;
        return found?.rows ?? [];
      }
      if (this.done || this.queue.length >= this.window) return [];
      await this.readGroup();
    }
  }

  /** Reads the next patent's consecutive rows into the queue. */
  private async readGroup(): Promise<void> {
    let group: { id: string; rows: CompanionRows } | null = this.pending
      ? { id: this.pending.id, rows: [this.pending.row] }
      : null;
    this.pending = null;
    for (;;) {
      const next = await this.rows.next();
      if (next.done) {
        this.done = true;
        break;
      }
      const row = Object.fromEntries(
        this.header.map((column, index) => [column, next.value.fields[index] ?? '']),
      );
      const id = (row.patent_id ?? '').trim();
      if (!group) {
        group = { id, rows: [row] };
        continue;
      }
      if (id === group.id) {
        group.rows.push(row);
        continue;
      }
      this.pending = { id, row };
      break;
    }
    if (group) {
      this.index.set(group.id, this.dropped + this.queue.length);
      this.queue.push(group);
    }
  }
}
