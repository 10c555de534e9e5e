import { Agent, request } from 'undici';
import { AppError, invalid, UpstreamError } from '../../domain/errors.js';
import type { FetchedResource, UrlFetcher, UrlFetchOptions } from '../../ports/url-fetcher.js';
import { AddressPolicy, ipLiteralOf } from './address-guard.js';
import { BlockedAddressError, guardedConnector } from './guarded-connection.js';

export interface UndiciUrlFetcherOptions {
  /** Largest body in bytes (content-length pre-check, streaming counter and undici's own cap). */
  maxBytes: number;
  /** Redirects followed at most; every hop is validated again. */
  maxRedirects: number;
  /** Time to connect and receive the response headers, in ms. */
  headersTimeoutMs: number;
  /** Longest pause between two body chunks, in ms. */
  bodyTimeoutMs: number;
  /** Deadline for the whole fetch, redirects included, in ms. */
  totalTimeoutMs: number;
  /** CIDRs an operator opened on purpose (tests: `127.0.0.1/32`); empty in production. */
  allowedPrivateRanges?: readonly string[];
  userAgent: string;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** The PDF magic may follow a little junk; readers accept it within the first KiB. */
const sniffWindow = 1024;
const pdfMagic = Buffer.from('%PDF-');

/**
 * The SSRF-safe fetcher: http/https only, every address checked by one policy (IP literals in any
 * notation before connecting, host names in the connection's DNS hook, so a rebinding answer is
 * checked where it is used, and the peer of every socket before a byte is sent on it), manual
 * redirects re-validated at each hop, size and time limits, no decompression.
 */
export class UndiciUrlFetcher implements UrlFetcher {
  private readonly policy: AddressPolicy;
  private readonly agent: Agent;

  constructor(private readonly options: UndiciUrlFetcherOptions) {
    this.policy = new AddressPolicy(options.allowedPrivateRanges ?? []);
    this.agent = new Agent({
      connect: guardedConnector(this.policy, { timeoutMs: options.headersTimeoutMs }),
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      maxResponseSize: options.maxBytes,
      keepAliveTimeout: 4_000,
    });
  }

  async fetch(url: string, options: UrlFetchOptions = {}): Promise<FetchedResource> {
    const param = options.param ?? 'url';
    const limit = Math.min(options.maxBytes ?? this.options.maxBytes, this.options.maxBytes);
    const deadline = AbortSignal.timeout(this.options.totalTimeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    let current = this.validate(url, param);
    for (let redirects = 0; ; redirects++) {
      const response = await request(current, {
        dispatcher: this.agent,
        method: 'GET',
        signal,
        headers: {
          'user-agent': this.options.userAgent,
          accept: options.expectPdf ? 'application/pdf,*/*;q=0.5' : '*/*',
          // We never decompress; asking for identity keeps the size limit honest.
          'accept-encoding': 'identity',
        },
      }).catch((error: unknown) => {
        throw this.toAppError(error, current, param, signal, options.signal);
      });
      const { statusCode, headers, body } = response;
      if (redirectStatuses.has(statusCode)) {
        await body.dump().catch(() => undefined);
        const location = headerOf(headers, 'location');
        if (!location) {
          throw new UpstreamError('fetch', `${hostOf(current)} answered ${statusCode} without a Location`, {
            param,
            upstreamStatus: statusCode,
            retryable: false,
          });
        }
        if (redirects >= this.options.maxRedirects) {
          throw invalid(param, `${param} redirects more than ${this.options.maxRedirects} times`);
        }
        current = this.validate(new URL(location, current).toString(), param, current);
        continue;
      }
      if (statusCode < 200 || statusCode >= 300) {
        await body.dump().catch(() => undefined);
        throw new UpstreamError('fetch', `${hostOf(current)} answered ${statusCode} for ${param}`, {
          param,
          upstreamStatus: statusCode,
        });
      }
      const declared = Number(headerOf(headers, 'content-length'));
      if (Number.isFinite(declared) && declared > limit) {
        discard(body);
        throw tooLarge(param, limit);
      }
      const bytes = await this.readBody(body, limit, param, options.expectPdf === true).catch(
        (error: unknown) => {
          discard(body);
          throw this.toAppError(error, current, param, signal, options.signal);
        },
      );
      return {
        url: current,
        status: statusCode,
        contentType: headerOf(headers, 'content-type') ?? null,
        bytes,
        redirects,
      };
    }
  }

  /** Streams the body with a byte counter; with `expectPdf` stops as soon as the magic is missing. */
  private async readBody(
    body: AsyncIterable<Buffer>,
    limit: number,
    param: string,
    expectPdf: boolean,
  ): Promise<Uint8Array> {
    const parts: Buffer[] = [];
    let size = 0;
    let sniffed = !expectPdf;
    for await (const part of body) {
      size += part.length;
      if (size > limit) throw tooLarge(param, limit);
      parts.push(part);
      if (!sniffed && size >= sniffWindow) {
        assertPdf(Buffer.concat(parts), param);
        sniffed = true;
      }
    }
    const bytes = Buffer.concat(parts, size);
    if (!sniffed) assertPdf(bytes, param);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Scheme and IP-literal checks (host names are checked at connect time by the DNS hook). */
  private validate(text: string, param: string, redirectedFrom?: string): string {
    const from = redirectedFrom ? ` (redirect from ${hostOf(redirectedFrom)})` : '';
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid(param, `${param} is not a valid URL${from}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw invalid(param, `${param} must use http or https, not ${url.protocol.replace(/:$/, '')}${from}`);
    }
    if (url.hostname === '') throw invalid(param, `${param} has no host${from}`);
    const literal = ipLiteralOf(url.hostname);
    if (literal !== null) {
      const refusal = this.policy.refusal(literal);
      if (refusal) throw invalid(param, `${param} is refused: ${refusal}${from}`);
    }
    return url.toString();
  }

  private toAppError(
    error: unknown,
    url: string,
    param: string,
    signal: AbortSignal,
    callerSignal: AbortSignal | undefined,
  ): AppError {
    if (error instanceof AppError) return error;
    const blocked = findInChain(error, (item) => item instanceof BlockedAddressError);
    if (blocked) return invalid(param, `${param} is refused: ${(blocked as BlockedAddressError).reason}`);
    const code = errorCode(error);
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return tooLarge(param, this.options.maxBytes);
    const host = hostOf(url);
    if (
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      (signal.aborted && !callerSignal?.aborted)
    ) {
      return new AppError('timeout', `Fetching ${param} from ${host} timed out`, { param, cause: error });
    }
    if (callerSignal?.aborted) return new AppError('timeout', 'The request was cancelled', { cause: error });
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return new UpstreamError('fetch', `Cannot resolve the host ${host} of ${param}`, {
        param,
        cause: error,
        retryable: code === 'EAI_AGAIN',
      });
    }
    return new UpstreamError('fetch', `Cannot fetch ${param} from ${host} (${code ?? 'network error'})`, {
      param,
      cause: error,
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Drops a response body we will not read; its abort error has nobody to go to. */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function assertPdf(head: Buffer, param: string): void {
  if (head.subarray(0, sniffWindow).indexOf(pdfMagic) === -1) {
    throw new AppError('unsupported_media_type', `${param} does not point to a PDF (no %PDF- header)`, {
      param,
    });
  }
}

function tooLarge(param: string, limit: number): AppError {
  return new AppError('payload_too_large', `The document at ${param} is larger than ${formatMb(limit)}`, {
    param,
  });
}

function formatMb(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Number(mb.toFixed(1))} MB` : `${bytes} bytes`;
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the host';
  }
}

function errorCode(error: unknown): string | undefined {
  const code = findInChain(error, (item) => typeof (item as { code?: unknown }).code === 'string');
  return (code as { code?: string } | undefined)?.code;
}

/** The first error in `error`, its `cause`s and AggregateError members that satisfies `test`. */
function findInChain(error: unknown, test: (item: object) => boolean, depth = 0): object | undefined {
  if (depth > 8 || error === null || typeof error !== 'object') return undefined;
  if (test(error)) return error;
  const nested = [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])];
  for (const item of nested) {
    const found = findInChain(item, test, depth + 1);
    if (found) return found;
  }
  return undefined;
}
