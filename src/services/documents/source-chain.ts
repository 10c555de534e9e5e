import { sha256Hex } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Cache } from '../../ports/cache.js';
import type { FullTextQuery, FullTextSource } from '../../ports/full-text-source.js';
import type { DocumentText } from './document-text.js';
import { sourcedBlobKey } from './document-text.js';
import { chunkMarkdown } from './markdown-chunks.js';

/** How long "this source does not have it" is remembered, in seconds. */
const missTtlSeconds = 24 * 3600;
/** How long a failing source is skipped for a document, in seconds. */
const failureTtlSeconds = 10 * 60;

/**
 * Tries the configured full-text sources in order, cache first: a stored answer costs a lookup,
 * a remembered miss costs nothing, and only then is a source asked over the network. A failing
 * source never fails the read: the caller falls back to the PDF.
 */
export class SourceChain {
  constructor(
    private readonly options: {
      sources: readonly FullTextSource[];
      blobs: BlobStore;
      cache: Cache;
      logger?: Logger;
    },
  ) {}

  get isEmpty(): boolean {
    return this.options.sources.length === 0;
  }

  async find(query: FullTextQuery, signal?: AbortSignal): Promise<DocumentText | null> {
    for (const source of this.options.sources) {
      const key = source.keyFor(query);
      if (key === null) continue;
      const keyHash = sha256Hex(`${source.name}:${key}`);
      const blobKey = sourcedBlobKey(source.name, keyHash);
      const stored = await this.options.blobs.get(blobKey);
      if (stored) return JSON.parse(Buffer.from(stored).toString('utf8')) as DocumentText;
      const missKey = `fulltext-source-miss:${source.name}:${keyHash}`;
      if (await this.options.cache.get(missKey)) continue;
      try {
        const found = await source.fetch(query, signal ? { signal } : {});
        if (!found || found.markdown.trim().length === 0) {
          await this.options.cache.set(missKey, true, missTtlSeconds);
          continue;
        }
        const text: DocumentText = {
          sha256: keyHash,
          origin: source.name,
          pageCount: 0,
          hasTextLayer: true,
          metadata: found.title ? { title: found.title } : {},
          chunks: chunkMarkdown(found.markdown),
          figures: [],
        };
        await this.options.blobs.put(blobKey, Buffer.from(JSON.stringify(text)), {
          contentType: 'application/json',
        });
        return text;
      } catch (error) {
        if (signal?.aborted) throw error;
        this.options.logger?.warn({ err: error, source: source.name, key }, 'full-text source failed');
        await this.options.cache.set(missKey, true, failureTtlSeconds);
      }
    }
    return null;
  }
}
