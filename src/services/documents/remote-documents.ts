import { sha256Hex } from '../../platform/ids.js';
import type { Cache } from '../../ports/cache.js';
import type { UrlFetcher } from '../../ports/url-fetcher.js';

/** A downloaded remote PDF. */
export interface RemoteDocument {
  url: string;
  sha256: string;
  bytes: Uint8Array;
  /** The url that answered, after redirects. */
  finalUrl: string;
}

/**
 * Remote PDFs by url: the url → content-hash mapping is cached, so a url read before is not
 * downloaded again while its parse is stored. Concurrent downloads of one url are shared.
 */
export class RemoteDocuments {
  private readonly inflight = new Map<string, Promise<RemoteDocument>>();

  constructor(private readonly options: { fetcher: UrlFetcher; cache: Cache; ttlSeconds: number }) {}

  /** The content hash remembered for `url`, or null. */
  async knownHash(url: string): Promise<string | null> {
    return (await this.options.cache.get<string>(cacheKey(url))) ?? null;
  }

  /**
   * Downloads the PDF at `url` (SSRF-safe, PDF only) and remembers its hash. A failure names `param`,
   * the request parameter the url came from (`pdf_url`, `paper_id`, …). The download is shared by
   * concurrent callers of the same url and param (so that a failure names each caller's own param),
   * and no caller's abort cancels it; the fetcher's deadline bounds it.
   */
  download(url: string, param: string): Promise<RemoteDocument> {
    const key = `${param} ${url}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const work = (async (): Promise<RemoteDocument> => {
      const fetched = await this.options.fetcher.fetch(url, { param, expectPdf: true });
      const sha256 = sha256Hex(fetched.bytes);
      await this.options.cache.set(cacheKey(url), sha256, this.options.ttlSeconds);
      return { url, sha256, bytes: fetched.bytes, finalUrl: fetched.url };
    })().finally(() => this.inflight.delete(key));
    this.inflight.set(key, work);
    return work;
  }

  /** Forgets a url (its parse vanished, so the bytes are needed again). */
  async forget(url: string): Promise<void> {
    await this.options.cache.delete(cacheKey(url));
  }
}

function cacheKey(url: string): string {
  return `fulltext-url:${sha256Hex(url)}`;
}
