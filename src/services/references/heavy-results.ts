import { sha256Hex } from '../../platform/ids.js';
import type { Cache } from '../../ports/cache.js';
import type { CheckProgress } from './reference-check.js';

/**
 * The cache of heavy results (decision 0042): reference checks by content, citation contexts by
 * tenant. A check's key holds what its answer depends on — the content hash of the PDF's text or
 * of the bibliography, the index's data version and whether the sources were asked — and nothing
 * of who asked: its answer holds only the entries (read from bytes the caller sent or can read)
 * and index or source records every tenant may search, so tenants share it, as they share the
 * parse of the same bytes. Citation contexts quote the tenant's own stored PDFs: their key starts
 * with the tenant. A check stopped by its time budget keeps its progress under the same key.
 */
export class HeavyResults {
  constructor(
    private readonly cache: Cache | undefined,
    private readonly ttlSeconds: number,
  ) {}

  /** The key of a check of `content` (a text's `origin:sha256`, or a bibliography and its format). */
  checkKey(
    content: { documentText: string } | { bibliography: string; format?: string | undefined },
    version: string,
  ): string {
    const what =
      'documentText' in content
        ? `pdf:${content.documentText}`
        : `bib:${sha256Hex(`${content.format ?? ''}\u0000${content.bibliography}`)}`;
    return `heavy:verify:${version}:${what}`;
  }

  /** The key of a tenant's citation contexts of `paperKey` over its stored documents (`documents`). */
  contextsKey(tenantId: string, paperKey: string, documents: readonly string[], version: string): string {
    return `heavy:contexts:${sha256Hex(tenantId)}:${version}:${sha256Hex(`${paperKey}\u0000${documents.join('\u0000')}`)}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    return this.cache?.get<T>(key);
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.cache?.set(key, value, this.ttlSeconds);
  }

  /** What a stopped check had done (none: a fresh progress). */
  async progress(key: string): Promise<CheckProgress> {
    return (await this.cache?.get<CheckProgress>(`${key}:progress`)) ?? { results: [], complete: true };
  }

  /** Keeps a stopped check's progress (a short while: the client is told to ask again). */
  async keepProgress(key: string, progress: CheckProgress): Promise<void> {
    if (progress.results.length > 0)
      await this.cache?.set(`${key}:progress`, progress, Math.min(this.ttlSeconds, 3600));
  }

  async forgetProgress(key: string): Promise<void> {
    await this.cache?.delete(`${key}:progress`);
  }
}
