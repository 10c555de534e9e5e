import { describe, expect, it } from 'vitest';
import { MemoryCache } from '../../adapters/memory/memory-cache.js';
import { UpstreamError } from '../../domain/errors.js';
import type { FetchedResource, UrlFetcher, UrlFetchOptions } from '../../ports/url-fetcher.js';
import { RemoteDocuments } from './remote-documents.js';

/** A fetcher whose every call fails after a tick, as the real one does for an upstream 404. */
class FailingFetcher implements UrlFetcher {
  readonly calls: Array<{ url: string; param: string | undefined }> = [];

  async fetch(url: string, options: UrlFetchOptions = {}): Promise<FetchedResource> {
    this.calls.push({ url, param: options.param });
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new UpstreamError('fetch', `example.org answered 404 for ${options.param}`, {
      upstreamStatus: 404,
      ...(options.param ? { param: options.param } : {}),
    });
  }
}

describe('RemoteDocuments.download', () => {
  it('a failure names the param of each concurrent caller, sharing one download per url and param', async () => {
    const fetcher = new FailingFetcher();
    const remote = new RemoteDocuments({ fetcher, cache: new MemoryCache(), ttlSeconds: 60 });
    const url = 'https://example.org/paper.pdf';
    const outcomes = await Promise.allSettled([
      remote.download(url, 'pdf_url'),
      remote.download(url, 'pdf_url'),
      remote.download(url, 'paper_id'),
    ]);
    const params = outcomes.map((outcome) =>
      outcome.status === 'rejected' ? (outcome.reason as UpstreamError).param : 'fulfilled',
    );
    expect(params).toEqual(['pdf_url', 'pdf_url', 'paper_id']);
    expect(fetcher.calls).toEqual([
      { url, param: 'pdf_url' },
      { url, param: 'paper_id' },
    ]);
  });
});
