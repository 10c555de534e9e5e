import type { PaperIdentifier } from '../../domain/identifiers.js';
import type { Paper } from '../../domain/paper.js';
import type { SourceReport } from '../../domain/search.js';
import type { PaperSearch } from '../services.js';

/**
 * The federated sources as reference linking and checking ask them (online only, decision 0032):
 * a record by DOI or arXiv id, and the records a title search finds. `complete` is false when a
 * source failed, timed out or was skipped, so a miss is not taken as final (nothing is stored).
 */
export interface OnlineRecords {
  byIdentifier(
    identifier: PaperIdentifier,
    signal?: AbortSignal,
  ): Promise<{ paper: Paper | null; complete: boolean }>;
  searchTitle(title: string, signal?: AbortSignal): Promise<{ papers: Paper[]; complete: boolean }>;
}

/** What the federation's metadata service offers (`PaperMetadataService.resolve`). */
export interface ResolvingLookup {
  resolve(
    identifier: PaperIdentifier,
    options?: { signal?: AbortSignal },
  ): Promise<{ paper: Paper | null; sources: SourceReport[] }>;
}

/** Candidates asked of a title search. */
const titleCandidates = 10;

/**
 * `OnlineRecords` over the federation services: identifiers through the resolver (the index
 * first, then every source that knows the identifier type, merged and cached), titles through the
 * federated search (the index and the sources, fused and cached). No adapter is named here.
 */
export function federatedRecords(lookup: ResolvingLookup, search: PaperSearch): OnlineRecords {
  const complete = (reports: readonly SourceReport[] | undefined) =>
    (reports ?? []).every((report) => report.status === 'ok');
  return {
    async byIdentifier(identifier, signal) {
      try {
        const { paper, sources } = await lookup.resolve(identifier, signal ? { signal } : {});
        return { paper, complete: complete(sources) };
      } catch (error) {
        if (signal?.aborted) throw error;
        return { paper: null, complete: false };
      }
    },
    async searchTitle(title, signal) {
      // Only words: a colon or quotes would read as search syntax ("S2ORC: The …").
      const keywords = title
        .replace(/[^\p{L}\p{N}\s-]+/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 300);
      if (keywords.split(' ').length < 2) return { papers: [], complete: true };
      try {
        const result = await search.searchPapers(
          { keywords, sort: 'relevance', peerReviewedOnly: false, offset: 0, limit: titleCandidates },
          signal ? { signal } : {},
        );
        return { papers: result.papers, complete: complete(result.sources) };
      } catch (error) {
        if (signal?.aborted) throw error;
        return { papers: [], complete: false };
      }
    },
  };
}
