import type { Paper } from '../../src/domain/paper.js';
import type { SearchService } from '../../src/services/search-service.js';

/**
 * Each query with the service's top `limit` papers for its text (`queryOf`; relevance order, no
 * offset; every record unless `peerReviewedOnly`), one query after another: the next is searched only
 * once the caller has taken the last. By default the top 100 of every record: a SciFact claim's
 * candidates.
 */
export async function* rankedQueries<Q>(
  search: SearchService,
  queries: readonly Q[],
  queryOf: (query: Q) => string,
  options: { limit?: number; peerReviewedOnly?: boolean } = {},
): AsyncGenerator<[Q, Paper[]]> {
  const { limit = 100, peerReviewedOnly = false } = options;
  for (const query of queries) {
    const result = await search.searchPapers({
      query: queryOf(query),
      sort: 'relevance',
      peerReviewedOnly,
      offset: 0,
      limit,
    });
    yield [query, result.papers];
  }
}
