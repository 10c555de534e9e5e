import { type CitationContext, findCitationContexts } from './citation-markers.js';
import { type ChunkText, parseReferenceList, type ReferenceList } from './references.js';

/** A document's reference list and the sentences citing its entries. */
export interface ReferenceReading {
  list: ReferenceList | null;
  contexts: CitationContext[];
}

/**
 * Reads a document's reference list and its citing sentences: pure and synchronous, ~1 ms for a
 * 60-entry list but about 0.7 s for 10,000 entries, so `ReferenceReader`s run big texts off the
 * event loop.
 */
export function readReferences(chunks: readonly ChunkText[]): ReferenceReading {
  const list = parseReferenceList(chunks);
  return { list, contexts: list ? findCitationContexts(chunks, list) : [] };
}

/**
 * Reads the references of a text, in this thread or another. `signal` stops it (a worker is then
 * terminated mid-text: a regular expression caught in hostile text cannot hold anything up).
 */
export interface ReferenceReader {
  read(chunks: readonly ChunkText[], signal?: AbortSignal): Promise<ReferenceReading>;
  close(): Promise<void>;
}

/** Reading in the caller's thread: for tests and small texts. */
export const inlineReferenceReader: ReferenceReader = {
  async read(chunks, signal) {
    signal?.throwIfAborted();
    return readReferences(chunks);
  },
  async close() {},
};
