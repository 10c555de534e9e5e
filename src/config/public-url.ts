import { AsyncLocalStorage } from 'node:async_hooks';
import type { Config } from './load-config.js';

/**
 * The public origin of the HTTP request being served, for links built deep inside services (figure
 * links, chunk links) that know nothing of the request. The HTTP layer sets it around each request's
 * handler (src/http/public-origin.ts); outside a request there is none.
 */
const requestOrigin = new AsyncLocalStorage<string>();

/**
 * The base URL clients reach the service at, without a trailing slash: `ALEXANDRIA_PUBLIC_URL` when
 * configured; else, while a request is served, the origin that request arrived for (its Host, or a
 * trusted proxy's forwarded host and scheme); else `http://localhost:<port>` (the CLI, background jobs).
 */
export function publicUrlOf(config: Config): string {
  const configured = config.server.publicUrl;
  if (configured !== undefined) return withoutTrailingSlash(configured);
  return requestOrigin.getStore() ?? localUrlOf(config);
}

/** `http://localhost:<port>`: the base URL when none is configured and no request is being served. */
export function localUrlOf(config: Config): string {
  return `http://localhost:${config.server.port}`;
}

/** Runs `work` (and everything it starts) with `origin` as the request's public origin. */
export function withRequestOrigin<T>(origin: string, work: () => T): T {
  return requestOrigin.run(withoutTrailingSlash(origin), work);
}

export function withoutTrailingSlash(url: string): string {
  return url.endsWith('/') ? url.replace(/\/+$/, '') : url;
}
