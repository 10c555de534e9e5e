import { createHmac, timingSafeEqual } from 'node:crypto';
import { type FigureFormat, figureFormats } from '../../ports/pdf-extractor.js';

/** The parts of a figure link, as the figure route receives them. */
export interface FigureLinkParts {
  sha256: string;
  figureId: string;
  /** From the link's file extension (`.png`, `.jpg`); not signed: another one only finds nothing. */
  format?: FigureFormat;
  expires: number;
  signature: string;
}

const shaPattern = /^[0-9a-f]{64}$/;
const figureIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Signed, expiring figure URLs. Markdown image links are opened by browsers and chat clients that
 * do not send our API key, so a figure is reachable by an unguessable link instead: an HMAC of the
 * path and expiry under the service's signing secret. The expiry is rounded to a bucket so the same
 * chunk read twice within a bucket carries the same links (clients can cache them).
 */
export class FigureLinks {
  constructor(
    private readonly options: {
      secret: string;
      /** Absolute base URL of the service, without a trailing slash. */
      publicUrl: string;
      /** A link stays valid at least this long (and at most twice as long). */
      ttlSeconds: number;
      now?: () => number;
    },
  ) {}

  /** Path of a figure below the base URL; the route is registered on the same pattern. */
  static path(sha256: string, figureId: string, format: FigureFormat = 'png'): string {
    return `/files/figures/${sha256}/${figureId}.${figureFormats[format].extension}`;
  }

  /** The absolute, signed URL of a figure of the document with content hash `sha256`. */
  url(sha256: string, figureId: string, format: FigureFormat = 'png'): string {
    const now = Math.floor((this.options.now?.() ?? Date.now()) / 1000);
    const ttl = this.options.ttlSeconds;
    const expires = (Math.floor(now / ttl) + 2) * ttl;
    const signature = this.sign(sha256, figureId, expires);
    return `${this.options.publicUrl}${FigureLinks.path(sha256, figureId, format)}?exp=${expires}&sig=${signature}`;
  }

  /** True when the parts are well-formed, unexpired and signed with our secret. */
  verify(parts: FigureLinkParts): boolean {
    if (!shaPattern.test(parts.sha256) || !figureIdPattern.test(parts.figureId)) return false;
    const now = Math.floor((this.options.now?.() ?? Date.now()) / 1000);
    if (!Number.isSafeInteger(parts.expires) || parts.expires < now) return false;
    const expected = Buffer.from(this.sign(parts.sha256, parts.figureId, parts.expires));
    const given = Buffer.from(parts.signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(sha256: string, figureId: string, expires: number): string {
    return createHmac('sha256', this.options.secret)
      .update(`figure:${sha256}/${figureId}:${expires}`)
      .digest('base64url');
  }
}
