import type { Paper } from '../../domain/paper.js';
import { isPeerReviewed } from '../../domain/peer-review.js';
import type { SearchRequest } from '../../domain/search.js';

/**
 * The merged list's filters, applied again after fusion because not every source can filter:
 * the same peer-review rule as the local index (`isPeerReviewed`), and years (records without one
 * are dropped when a bound is set).
 */
export function applyFilters(papers: Paper[], request: SearchRequest): Paper[] {
  return papers.filter((paper) => {
    if (request.peerReviewedOnly && !isPeerReviewed(paper)) return false;
    const hasRange = request.startYear !== undefined || request.endYear !== undefined;
    if (!hasRange) return true;
    if (paper.year === null || paper.year === undefined) return false;
    if (request.startYear !== undefined && paper.year < request.startYear) return false;
    if (request.endYear !== undefined && paper.year > request.endYear) return false;
    return true;
  });
}

/** Sorts the fused list: relevance keeps fusion order; the others are stable, unknowns last. */
export function applySort(papers: Paper[], sort: SearchRequest['sort']): Paper[] {
  if (sort === 'relevance') return papers;
  const value = (paper: Paper): number | string | null =>
    sort === 'cited_by_count'
      ? paper.cited_by_count
      : (paper.publication_date ?? (paper.year ? String(paper.year) : null));
  return papers
    .map((paper, index) => ({ paper, index, key: value(paper) }))
    .sort((a, b) => {
      if (a.key === null && b.key === null) return a.index - b.index;
      if (a.key === null) return 1;
      if (b.key === null) return -1;
      if (a.key === b.key) return a.index - b.index;
      return a.key < b.key ? 1 : -1;
    })
    .map((entry) => entry.paper);
}
