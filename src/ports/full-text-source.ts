import type { PaperIdentifiers } from '../domain/paper.js';

/**
 * A source of full text that is cheaper or better than parsing the PDF (Europe PMC JATS XML for PMC
 * articles, arXiv sources, …). The full-text service asks the configured sources, in order, before it
 * fetches or parses a PDF; the first that answers wins, and its answer is cached like a parse.
 */
export interface FullTextSource {
  /** Short stable name (`europepmc`), part of cache keys. */
  readonly name: string;
  /**
   * The key under which this source's text for `query` is cached (`PMC123456`), or null when the
   * source has nothing for such a query. Pure: no I/O, so a cache hit costs no network call.
   */
  keyFor(query: FullTextQuery): string | null;
  /**
   * The full text as markdown (`#` headings, blank-line paragraphs), or null when the source does
   * not have this document. Throws AppError `upstream_unavailable`/`timeout` on failures; the
   * service then falls back to the PDF.
   */
  fetch(query: FullTextQuery, options?: { signal?: AbortSignal }): Promise<SourcedFullText | null>;
}

/** What is known about the document being read. */
export interface FullTextQuery {
  /** The remote PDF url, when the document was named by url. */
  url?: string;
  /** Identifiers of the paper (from the project entry, or recognised in the url). */
  identifiers: PaperIdentifiers;
  /** Content hash of the PDF, when it is stored already. */
  sha256?: string;
}

export interface SourcedFullText {
  markdown: string;
  title?: string;
}
