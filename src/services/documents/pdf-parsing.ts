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
