/**
 * Fetches a user-supplied URL safely (SSRF guard, redirects, size and time limits). Adapter:
 * `src/adapters/http-fetch/undici-url-fetcher.ts`.
 *
 * Failures are AppErrors: `invalid_request` (400, naming `param`) for a malformed or refused URL
 * (scheme, private address, too many redirects), `payload_too_large` (413), `unsupported_media_type`
 * (415) when `expectPdf` is set and the body is not a PDF, `upstream_unavailable` (502) for
 * connection failures and non-2xx answers, `timeout` (504). Each names `param` (a cancelled call aside).
 */
export interface UrlFetcher {
  fetch(url: string, options?: UrlFetchOptions): Promise<FetchedResource>;
}

export interface UrlFetchOptions {
  signal?: AbortSignal;
  /** Request parameter the URL came from, named in every error (default `url`). */
  param?: string;
  /** Per-call byte limit; at most the fetcher's configured limit. */
  maxBytes?: number;
  /** Refuse (415) any body that does not start with the `%PDF-` magic, without reading it whole. */
  expectPdf?: boolean;
}

export interface FetchedResource {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  /** The `content-type` header, when sent. */
  contentType: string | null;
  bytes: Uint8Array;
  /** Number of redirects followed. */
  redirects: number;
}
