import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { AppError, UpstreamError } from '../../domain/errors.js';
import type { ZoteroCredentials, ZoteroItem, ZoteroLibrary } from '../../ports/zotero-library.js';
import { zoteroWriteResponseSchema } from './zotero-api.js';

export interface ZoteroWebApiOptions {
  /** Base URL of the API (https://api.zotero.org); from configuration only, never from a request. */
  baseUrl: string;
  /** Deadline for one call, in ms. */
  timeoutMs: number;
  userAgent: string;
}

/** Seconds from Zotero's `Retry-After` or `Backoff` header, when it sent one. */
function retryAfterOf(headers: Record<string, string | string[] | undefined>): number | undefined {
  for (const name of ['retry-after', 'backoff']) {
    const value = Number(headers[name]);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  return undefined;
}

/**
 * Zotero's web API v3 over undici. The base URL is a fixed, configured, trusted host, so the SSRF
 * guard of user-supplied URLs is not involved. The key travels only in the `Zotero-API-Key` header.
 */
export class ZoteroWebApi implements ZoteroLibrary {
  private readonly baseUrl: string;

  constructor(private readonly options: ZoteroWebApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async createItem(
    credentials: ZoteroCredentials,
    item: ZoteroItem,
    options: { signal?: AbortSignal } = {},
  ): Promise<{ key: string; version: number | null }> {
    const url = `${this.baseUrl}/users/${encodeURIComponent(credentials.userId)}/items`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
          'zotero-api-version': '3',
          'zotero-api-key': credentials.apiKey,
          // Makes a retried request idempotent on Zotero's side.
          'zotero-write-token': randomBytes(16).toString('hex'),
        },
        body: JSON.stringify([item]),
        signal,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
    } catch (error) {
      if (timeout.aborted) {
        throw new AppError('timeout', `Zotero did not answer within ${this.options.timeoutMs} ms`, {
          cause: error,
        });
      }
      throw new UpstreamError('zotero', `Zotero could not be reached: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const text = await response.body.text();
    const status = response.statusCode;
    if (status === 403) {
      throw new AppError(
        'forbidden',
        `Zotero refused the key (403): check that it is valid and may write to user library ${credentials.userId}`,
        { param: 'x-zotero-api-key' },
      );
    }
    if (status === 404) {
      throw new AppError('not_found', `Zotero has no user library ${credentials.userId}`, {
        param: 'zotero_user_id',
      });
    }
    if (status !== 200) {
      const retryAfter = retryAfterOf(response.headers);
      throw new UpstreamError('zotero', `Zotero answered ${status}: ${text.slice(0, 200)}`, {
        upstreamStatus: status,
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      });
    }
    let parsed: ReturnType<typeof zoteroWriteResponseSchema.safeParse>;
    try {
      parsed = zoteroWriteResponseSchema.safeParse(JSON.parse(text));
    } catch {
      throw new UpstreamError('zotero', 'Zotero answered with a body that is not JSON', {
        upstreamStatus: status,
      });
    }
    if (!parsed.success) {
      throw new UpstreamError('zotero', 'Zotero answered with an unexpected body', {
        upstreamStatus: status,
      });
    }
    const saved = parsed.data.successful?.['0'];
    if (saved) return { key: saved.key, version: saved.version ?? null };
    const key = parsed.data.success?.['0'] ?? parsed.data.unchanged?.['0'];
    if (key) return { key, version: null };
    const failure = parsed.data.failed?.['0'];
    throw new AppError('unprocessable', `Zotero refused the item: ${failure?.message ?? 'no reason given'}`);
  }
}
