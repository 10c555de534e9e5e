import type { TenantShare } from '../tenant-share.js';
import type { DocumentText } from './document-text.js';
import type { ParseCache, ParseOptions } from './parse-cache.js';

/**
 * How add_to_project gets the parse of a PDF whose bytes it holds: from the parse cache, else
 * parsed in this process (the embedded default) or by a `parse-pdf` job that any replica or
 * worker may run (a queue shared through Redis, `src/services/jobs/pdf-parse-job.ts`). Either way
 * the parse ends up in the parse cache, keyed by content hash and parser version, and the same
 * bytes are parsed once however many callers ask at once.
 */
export interface PdfParsing {
  /**
   * The parse of `bytes` (hash `sha256`), in `options.lane`'s turn. Rejects with the parse's
   * `AppError` (422, 413, 504) for bytes that do not parse, or with the signal's reason on abort.
   */
  parse(sha256: string, bytes: Uint8Array, options: ParseOptions): Promise<DocumentText>;
}

/** Parsing in this process: straight to the parse cache with the bytes in hand (no copy, no queue). */
export function inProcessParsing(parses: ParseCache): PdfParsing {
  return { parse: (sha256, bytes, options) => parses.get(sha256, async () => bytes, options) };
}

/**
 * Parsing within the tenant's share of parses (decision 0042): a parse the cache does not hold
 * takes one of the tenant's places (`options.lane`) for as long as it waits and runs; past the
 * share the request is refused with 429 and Retry-After. A cached parse costs no place.
 */
export function meteredParsing(parsing: PdfParsing, parses: ParseCache, share?: TenantShare): PdfParsing {
  if (!share) return parsing;
  return {
    async parse(sha256, bytes, options) {
      const lane = options.lane;
      if (lane === undefined) return parsing.parse(sha256, bytes, options);
      const cached = await parses.lookup(sha256);
      if (cached) return cached;
      return share.within('Parsing a PDF', lane, () => parsing.parse(sha256, bytes, options));
    },
  };
}
