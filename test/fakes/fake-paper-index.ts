import type { Paper } from '../../src/domain/paper.js';
import type { IndexPage, IndexQuery, PaperIndex, UpsertSummary } from '../../src/ports/paper-index.js';

/**
 * A PaperIndex that records every query and answers with scripted pages (in order; the last one
 * repeats). For service tests; the real behaviour is covered by the contract suite.
 */
export class FakePaperIndex implements PaperIndex {
  readonly queries: IndexQuery[] = [];
  readonly upserted: Paper[] = [];
  readonly lookedUp: string[][] = [];
  private pages: IndexPage[];

  constructor(
    pages: Array<Partial<IndexPage> & { papers: Paper[] }> = [],
    private readonly byKey = new Map<string, Paper>(),
  ) {
    this.pages = pages.map((page) => ({
      scores: page.papers.map((_, index) => 10 - index),
      total: page.papers.length,
      totalIsExact: true,
      ...page,
    }));
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    this.queries.push(query);
    const page = this.pages.length > 1 ? this.pages.shift() : this.pages[0];
    return page ?? { papers: [], scores: [], total: 0, totalIsExact: true };
  }

  async upsert(papers: readonly Paper[]): Promise<UpsertSummary> {
    this.upserted.push(...papers);
    return { inserted: papers.length, merged: 0, unchanged: 0 };
  }

  async findByKeys(keys: readonly string[]): Promise<Paper | null> {
    this.lookedUp.push([...keys]);
    for (const key of keys) {
      const paper = this.byKey.get(key);
      if (paper) return paper;
    }
    return null;
  }

  /** Changes with every upsert, like a real index's. */
  async dataVersion() {
    return `fake.${this.upserted.length}`;
  }

  async count() {
    return { papers: this.upserted.length, patents: 0 };
  }

  async stats() {
    return { records: this.upserted.length };
  }

  async optimize() {}
  async ping() {}
  async close() {}
}
