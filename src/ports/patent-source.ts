import type { SourceCallOptions, SourcePage, SourceQuery } from './paper-source.js';

/**
 * An upstream patent search API (PatentsView PatentSearch, EPO OPS, …). Records are `Paper`s with
 * `type` `patent`/`patent-application`, `patent_number`, `kind`, `assignees` and inventors as
 * `authors`. The local USPTO/PatentsView index is searched beside it, never replaced by it.
 */
export interface PatentSource {
  /** Stable short name used in reports, headers, metrics and config (`patentsview`, …). */
  readonly name: string;
  /**
   * Weight of this source's list in federated search's reciprocal-rank fusion (the local index
   * weighs 1.2); 0.8 when absent.
   */
  readonly fusionWeight?: number;
  /** Best matching patents for the query, best first; at most `query.limit` records. */
  searchPatents(query: SourceQuery, options?: SourceCallOptions): Promise<SourcePage>;
}
