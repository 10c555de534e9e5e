import { fillIndexAdvice, keepLocalAdvice } from '../services/search/empty-result-hint.js';

/**
 * What `serve` says at startup about where searches go (decision 0045): which upstream sources are
 * on and what leaves the machine, or that nothing does; and whether the local index holds anything.
 * The advice is the empty-result hint's, word for word.
 */
export function sourcesNotice(sources: readonly string[]): string {
  if (sources.length === 0) {
    return 'Upstream sources: off (ALEXANDRIA_SOURCES=none). Every request stays on this machine; searches find what the local index holds.';
  }
  return `Upstream sources: ${sources.join(', ')}. Searches and paper look-ups send their words and identifiers to these services (see docs/decisions/0045); ${keepLocalAdvice}.`;
}

/** One line on the local index: its size, or how to fill it when empty. */
export function indexNotice(counts: { papers: number; patents: number }): string {
  if (counts.papers + counts.patents === 0) {
    return `Local index: empty. To search your own corpus offline, ${fillIndexAdvice}.`;
  }
  return `Local index: ${counts.papers} papers, ${counts.patents} patents.`;
}
